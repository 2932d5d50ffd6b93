import { Type, type Static } from 'typebox'
import { StringEnum } from '../shared/schema.js'

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
