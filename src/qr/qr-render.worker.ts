import { setPriority } from 'node:os'
import QRCode from 'qrcode'
import { addLogoToPng, addLogoToSvg, type LogoImage } from './qr-logo.compose.js'

/** What a QR render thread is asked for: the text and everything the image depends on. */
export interface RenderTask {
  readonly text: string
  readonly format: 'png' | 'svg'
  readonly size: number
  readonly margin: number
  readonly ecc: 'L' | 'M' | 'Q' | 'H'
  readonly color: string
  readonly background: string
  /** Drawn in the centre (the service asks for ECC H with it); a PNG code takes a PNG logo only. */
  readonly logo?: LogoImage
}

// A 4096-pixel PNG costs over a second of CPU. On a thread of its own, and behind serving in the
// scheduler's order (on Linux a nice value belongs to the thread), it cannot delay a redirect.
setPriority(10)

/** One QR image (run by the pool in qr-render.pool.ts). */
export default async function render(task: RenderTask): Promise<Uint8Array | string> {
  const { text, format, size, margin, ecc, color, background, logo } = task
  const rendering = { width: size, margin, errorCorrectionLevel: ecc, color: { dark: `${color}ff`, light: `${background}ff` } }
  if (format === 'svg') {
    const svg = await QRCode.toString(text, { ...rendering, type: 'svg' })
    return logo ? addLogoToSvg(svg, modulesOf(text, ecc), margin, background, logo) : svg
  }
  const png = await QRCode.toBuffer(text, { ...rendering, type: 'png' })
  return logo ? addLogoToPng(png, modulesOf(text, ecc), margin, background, logo) : png
}

/** The symbol's width in modules, which places the logo. */
const modulesOf = (text: string, ecc: RenderTask['ecc']) => QRCode.create(text, { errorCorrectionLevel: ecc }).modules.size
