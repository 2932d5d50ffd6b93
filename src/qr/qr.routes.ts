import { resourceFirst } from '../http/resource-first.js'
import type { App } from '../http/types.js'
import { LinkIdParams } from '../links/links.schemas.js'
import type { LinksService } from '../links/links.service.js'
import { errorResponses } from '../shared/schema.js'
import { QrQuery, QrResponses } from './qr.schemas.js'
import type { QrOptions, QrService } from './qr.service.js'
import { principalOf } from '../http/auth.js'

export function qrRoutes(app: App, { qr, links }: { qr: QrService; links: LinksService }): void {
  app.get(
    '/v1/links/:id/qr',
    {
      config: { scope: 'links:read' },
      schema: {
        tags: ['links'],
        security: [{ bearer: [] }],
        summary: "A link's QR code (PNG or SVG), cacheable with ETag / If-None-Match",
        description:
          'Encodes the short URL with a `qr=1` marker, so that scans are counted apart (the redirect strips the marker). `size` 64–4096 px, `margin` 0–32 modules, `ecc` L|M|Q|H, `color` and `background` as `#rrggbb`; `download=1` adds a file name. Large codes are drawn off the event loop.',
        params: LinkIdParams,
        querystring: QrQuery,
        response: { ...QrResponses, ...errorResponses },
      },
      preValidation: resourceFirst((req, id) => links.get(principalOf(req), id)),
    },
    async (req, reply) => {
      // Ajv filled in every default, so each option is present.
      const result = await qr.render(principalOf(req), req.params.id, req.query as QrOptions, req.headers['if-none-match'])
      // The link's path or domain can change: caches must revalidate, which the ETag makes cheap.
      reply.header('ETag', result.etag).header('Cache-Control', 'private, no-cache')
      if (result.notModified) return reply.code(304).send()
      if (req.query.download) reply.header('Content-Disposition', `attachment; filename="${result.filename}"`)
      return reply.type(result.contentType).send(result.body)
    },
  )
}
