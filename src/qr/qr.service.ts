import { createHash } from 'node:crypto'
import type { LinksService } from '../links/links.service.js'
import { QR_MARKER } from '../links/short-paths.js'
import type { Principal } from '../tokens/tokens.service.js'
import type { QrLogoService } from './qr-logo.service.js'
import type { QrRenderer } from './qr-render.pool.js'
import { invisibleCode, noLogo, svgLogoOnPng } from './qr.errors.js'
import type { QrQuery } from './qr.schemas.js'

export type QrOptions = Required<QrQuery>

export type QrResult =
  | { readonly notModified: true; readonly etag: string }
  | { readonly notModified: false; readonly etag: string; readonly body: Buffer | string; readonly contentType: string; readonly filename: string }

// Part of the ETag: bump it when the rendering changes (another qrcode version, other defaults).
const RENDERING = 'qrcode-1.5'

/** Does an If-None-Match header name this ETag (a list, weak validators and `*` included)? */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === etag
  })
}

export function createQrService(deps: { links: LinksService; logos: QrLogoService; renderer: QrRenderer }) {
  return {
    /**
     * The QR code of a link: it encodes the short URL with the QR marker (`?qr=1`), which the redirect
     * strips and counts as a scan. The ETag hashes everything the image depends on, so a client's
     * cached copy is answered with 304 without rendering anything. With `logo`, the workspace's logo is
     * drawn in the centre and the error correction is H whatever `ecc` says: the logo hides modules.
     */
    async render(principal: Principal, id: string, options: QrOptions, ifNoneMatch: string | undefined): Promise<QrResult> {
      if (options.color.toLowerCase() === options.background.toLowerCase()) throw invisibleCode()
      const link = await deps.links.get(principal, id)
      const text = `${link.shortUrl}?${QR_MARKER}=1`
      const { format, size, margin, color, background } = options
      const logo = options.logo ? await deps.logos.find(principal.ownerId) : undefined
      if (options.logo && !logo) throw noLogo()
      if (logo?.type === 'image/svg+xml' && format === 'png') throw svgLogoOnPng()
      const ecc = logo ? 'H' : options.ecc
      // The logo's digest: a new logo is a new image, and a new ETag.
      const etag = `"${createHash('sha256')
        .update(JSON.stringify([RENDERING, text, format, size, margin, ecc, color.toLowerCase(), background.toLowerCase(), logo?.digest ?? null]))
        .digest('base64url')
        .slice(0, 32)}"`
      if (etagMatches(ifNoneMatch, etag)) return { notModified: true, etag }
      const task = { text, format, size, margin, ecc, color, background, ...(logo && { logo: { type: logo.type, data: logo.data } }) }
      const body = await deps.renderer.render(etag, task, principal.ownerId)
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
