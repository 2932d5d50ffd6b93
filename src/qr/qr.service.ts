import { createHash } from 'node:crypto'
import type { LinksService } from '../links/links.service.js'
import { QR_MARKER } from '../links/short-paths.js'
import type { Principal } from '../tokens/tokens.service.js'
import type { QrRenderer } from './qr-render.pool.js'
import { invisibleCode } from './qr.errors.js'
import type { QrQuery } from './qr.schemas.js'

export type QrOptions = Required<QrQuery>

export type QrResult =
  | { readonly notModified: true; readonly etag: string }
  | { readonly notModified: false; readonly etag: string; readonly body: Buffer | string; readonly contentType: string; readonly filename: string }

// Part of the ETag: bump it when the rendering changes (another qrcode version, other defaults).
const RENDERING = 'qrcode-1.5'

/** Does an If-None-Match header name this ETag (a list, weak validators and `*` included)? */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === etag
  })
}

export function createQrService(deps: { links: LinksService; renderer: QrRenderer }) {
  return {
    /**
     * The QR code of a link: it encodes the short URL with the QR marker (`?qr=1`), which the redirect
     * strips and counts as a scan. The ETag hashes everything the image depends on, so a client's
     * cached copy is answered with 304 without rendering anything.
     */
    async render(principal: Principal, id: string, options: QrOptions, ifNoneMatch: string | undefined): Promise<QrResult> {
      if (options.color.toLowerCase() === options.background.toLowerCase()) throw invisibleCode()
      const link = await deps.links.get(principal, id)
      const text = `${link.shortUrl}?${QR_MARKER}=1`
      const { format, size, margin, ecc, color, background } = options
      const etag = `"${createHash('sha256')
        .update(JSON.stringify([RENDERING, text, format, size, margin, ecc, color.toLowerCase(), background.toLowerCase()]))
        .digest('base64url')
        .slice(0, 32)}"`
      if (matches(ifNoneMatch, etag)) return { notModified: true, etag }
      const body = await deps.renderer.render(etag, { text, format, size, margin, ecc, color, background }, principal.ownerId)
      return {
        notModified: false,
        etag,
        body,
        contentType: format === 'png' ? 'image/png' : 'image/svg+xml',
        filename: `${link.path.slice(1).replaceAll('/', '-')}.${format}`,
      }
    },
  }
}
export type QrService = ReturnType<typeof createQrService>
