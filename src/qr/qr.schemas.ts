import { Type, type Static } from 'typebox'
import { Envelope, StringEnum } from '../shared/schema.js'
import { LOGO_BYTES, LOGO_MAX_SIDE } from './qr-logo.images.js'

const Colour = (what: string, fallback: string) =>
  Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', default: fallback, 'x-error': `${what} must be a #rrggbb hex colour`, description: `${what}, #rrggbb` })

export const QrQuery = Type.Object(
  {
    format: Type.Optional(StringEnum(['png', 'svg'], { default: 'png' })),
    size: Type.Optional(
      Type.Integer({ minimum: 64, maximum: 4096, default: 512, description: 'Width and height in pixels (a code that needs more pixels gets them)' }),
    ),
    margin: Type.Optional(Type.Integer({ minimum: 0, maximum: 32, default: 4, description: 'Quiet zone, in modules' })),
    ecc: Type.Optional(StringEnum(['L', 'M', 'Q', 'H'], { default: 'M', description: 'Error correction level' })),
    color: Type.Optional(Colour('color', '#000000')),
    background: Type.Optional(Colour('background', '#ffffff')),
    download: Type.Optional(Type.Boolean({ default: false, description: 'true|1: Content-Disposition: attachment' })),
    logo: Type.Optional(
      Type.Boolean({
        default: false,
        description: "true|1: the workspace's logo in the centre, with error correction H whatever `ecc` says (400 `logo` when there is none)",
      }),
    ),
  },
  { additionalProperties: false },
)
export type QrQuery = Static<typeof QrQuery>

/** The OpenAPI description of the image answers (the body is not JSON, so nothing is serialized from this). */
export const QrResponses = {
  200: {
    description: 'The QR code; it encodes the short URL with the QR-scan marker',
    content: { 'image/png': { schema: { type: 'string', format: 'binary' } }, 'image/svg+xml': { schema: { type: 'string' } } },
  },
  304: { description: 'Not modified (If-None-Match matched the ETag)', type: 'null' },
}

/** The workspace's logo as the API describes it (the image itself is GET /v1/workspace/logo). */
export const LogoEnvelope = Envelope(
  Type.Object({
    contentType: StringEnum(['image/png', 'image/svg+xml'], { examples: ['image/png'] }),
    bytes: Type.Integer({ examples: [18342], description: "the image's size in bytes" }),
    updatedAt: Type.String({ format: 'date-time', examples: ['2026-03-02T10:15:00.000Z'] }),
  }),
)
export const LogoDeletedEnvelope = Envelope(Type.Object({ deleted: Type.Literal(true) }))

/** The upload, for the OpenAPI document only: the body is the raw image, checked by the service. */
export const LogoUpload = {
  contentTypes: ['image/png', 'image/svg+xml'],
  description: `The image itself (at most ${LOGO_BYTES / 1024} KB): a PNG of at most ${LOGO_MAX_SIDE}×${LOGO_MAX_SIDE} pixels, or an SVG document with an <svg> root and nothing that runs or loads (no script, event handler, external link or url())`,
}

export const LogoImageResponses = {
  200: {
    description: "The workspace's logo, as uploaded",
    content: { 'image/png': { schema: { type: 'string', format: 'binary' } }, 'image/svg+xml': { schema: { type: 'string' } } },
  },
  304: { description: 'Not modified (If-None-Match matched the ETag)', type: 'null' },
}
