import { principalOf } from '../http/auth.js'
import type { App } from '../http/types.js'
import { errorResponses } from '../shared/schema.js'
import { LOGO_BYTES, LOGO_TYPES, type LogoType } from './qr-logo.images.js'
import type { QrLogoService } from './qr-logo.service.js'
import { logoMediaType } from './qr.errors.js'
import { etagMatches } from './qr.service.js'
import { LogoDeletedEnvelope, LogoEnvelope, LogoImageResponses, LogoUpload } from './qr.schemas.js'

const tags = ['links']
const security = [{ bearer: [] }]
const URL = '/v1/workspace/logo'

/**
 * The workspace's logo for its QR codes. Changing it takes the brand's scope, `domains:write` (admins
 * and owners); reading it takes `links:read`, like the codes that carry it.
 */
export async function qrLogoRoutes(app: App, { logos }: { logos: QrLogoService }): Promise<void> {
  // In a context of its own: this route alone takes raw image bytes, and no larger than a logo.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: LOGO_BYTES }, (_req, body, done) => done(null, body))
    scope.put(
      URL,
      {
        config: { scope: 'domains:write', audit: { resource: 'workspace_logo', id: (req) => req.principal?.ownerId }, rawBody: LogoUpload },
        bodyLimit: LOGO_BYTES,
        schema: {
          tags,
          security,
          summary: "Upload or replace the workspace's logo for QR codes (a PNG or an SVG, at most 100 KB)",
          description:
            'The body is the image itself, with `Content-Type: image/png` or `image/svg+xml` (another type is 415, a larger body 413). A PNG must decode and be at most 1024×1024 pixels; an SVG must be one `<svg>` document in the SVG namespace with nothing that runs or loads (refused, never cleaned: 400 `logo`). Codes ask for it with `logo=1`.',
          response: { 200: LogoEnvelope, ...errorResponses },
        },
      },
      async (req) => {
        const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
        if (!LOGO_TYPES.includes(type as LogoType) || !Buffer.isBuffer(req.body)) throw logoMediaType()
        return { success: true as const, data: await logos.put(principalOf(req).ownerId, type as LogoType, req.body) }
      },
    )
  })

  app.get(
    URL,
    {
      config: { scope: 'links:read' },
      schema: {
        tags,
        security,
        summary: "The workspace's logo for QR codes, as uploaded (404 when there is none)",
        description:
          'The image with its own Content-Type and an ETag (`If-None-Match` answers 304). Served with a Content-Security-Policy that lets nothing run, should an SVG be opened on its own.',
        response: { ...LogoImageResponses, ...errorResponses },
      },
    },
    async (req, reply) => {
      const logo = await logos.get(principalOf(req).ownerId)
      const etag = `"${logo.digest}"`
      reply
        .header('ETag', etag)
        .header('Cache-Control', 'private, no-cache')
        .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
      if (etagMatches(req.headers['if-none-match'], etag)) return reply.code(304).send()
      return reply.type(logo.type).send(logo.data)
    },
  )

  app.delete(
    URL,
    {
      config: { scope: 'domains:write', audit: { resource: 'workspace_logo', id: (req) => req.principal?.ownerId } },
      schema: {
        tags,
        security,
        summary: "Remove the workspace's logo (404 when there is none)",
        description: 'Codes asked for with `logo=1` are then refused (400 `logo`); codes without it are unchanged.',
        response: { 200: LogoDeletedEnvelope, ...errorResponses },
      },
    },
    async (req) => {
      await logos.remove(principalOf(req).ownerId)
      return { success: true as const, data: { deleted: true as const } }
    },
  )
}
