import { setPriority } from 'node:os'
import QRCode from 'qrcode'

/** What a QR render thread is asked for: the text and everything the image depends on. */
export interface RenderTask {
  readonly text: string
  readonly format: 'png' | 'svg'
  readonly size: number
  readonly margin: number
  readonly ecc: 'L' | 'M' | 'Q' | 'H'
  readonly color: string
  readonly background: string
}

// A 4096-pixel PNG costs over a second of CPU. On a thread of its own, and behind serving in the
// scheduler's order (on Linux a nice value belongs to the thread), it cannot delay a redirect.
setPriority(10)

/** One QR image (run by the pool in qr-render.pool.ts). */
export default async function render(task: RenderTask): Promise<Uint8Array | string> {
  const { text, format, size, margin, ecc, color, background } = task
  const rendering = { width: size, margin, errorCorrectionLevel: ecc, color: { dark: `${color}ff`, light: `${background}ff` } }
  return format === 'png' ? QRCode.toBuffer(text, { ...rendering, type: 'png' }) : QRCode.toString(text, { ...rendering, type: 'svg' })
}
