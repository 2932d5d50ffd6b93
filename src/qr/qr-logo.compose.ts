import { PNG } from 'pngjs'
import type { LogoType } from './qr-logo.images.js'

/** The logo's width as a share of the code's (the symbol's, without the quiet zone). */
const LOGO_SHARE = 0.21

/** A logo as a render thread receives it. */
export interface LogoImage {
  readonly type: LogoType
  readonly data: Uint8Array
}

/**
 * Where the logo goes, in modules from the symbol's corner: a square of whole modules painted in the
 * background colour (no module is half covered, which would confuse a scanner), centred, with the
 * logo centred inside it at LOGO_SHARE of the symbol's width and at least half a module of space.
 */
export function logoPlace(modules: number): { square: number; squareSide: number; logo: number; logoSide: number } {
  const logoSide = modules * LOGO_SHARE
  let squareSide = Math.ceil(logoSide + 1)
  // Centred on module boundaries: the square's side has the symbol's parity.
  if ((modules - squareSide) % 2 !== 0) squareSide++
  return { square: (modules - squareSide) / 2, squareSide, logo: (modules - logoSide) / 2, logoSide }
}

/**
 * An SVG code from `qrcode` (its viewBox counts modules, quiet zone included) with the logo added on
 * top: the logo as an `<image>` with a data URL, where a browser shows an SVG statically (no script,
 * no request runs in it), and with `xlink:href`, which older editors and print tools also read.
 */
export function addLogoToSvg(svg: string, modules: number, margin: number, background: string, logo: LogoImage): string {
  const place = logoPlace(modules)
  const at = (n: number) => Number((n + margin).toFixed(3))
  const size = (n: number) => Number(n.toFixed(3))
  const href = `data:${logo.type};base64,${Buffer.from(logo.data).toString('base64')}`
  const overlay =
    `<rect x="${at(place.square)}" y="${at(place.square)}" width="${place.squareSide}" height="${place.squareSide}" fill="${background}"/>` +
    `<image xmlns:xlink="http://www.w3.org/1999/xlink" x="${at(place.logo)}" y="${at(place.logo)}" width="${size(place.logoSide)}" height="${size(place.logoSide)}" preserveAspectRatio="xMidYMid meet" xlink:href="${href}"/>`
  const end = svg.lastIndexOf('</svg>')
  return `${svg.slice(0, end)}${overlay}${svg.slice(end)}`
}

const rgbOf = (hex: string): [number, number, number] => [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)) as [number, number, number]

/**
 * A PNG code from `qrcode` with a PNG logo drawn in: both are decoded, the square painted, the logo
 * scaled to fit (each pixel the average of the logo's pixels under it, so a large logo shrinks without
 * jagged edges) and laid over the background by its alpha, and the whole encoded again.
 */
export function addLogoToPng(png: Uint8Array, modules: number, margin: number, background: string, logo: LogoImage): Buffer {
  const code = PNG.sync.read(Buffer.from(png))
  const source = PNG.sync.read(Buffer.from(logo.data))
  const place = logoPlace(modules)
  // qrcode draws module k (from the image's edge) from pixel ceil(k × scale) on.
  const scale = code.width / (modules + 2 * margin)
  const pixel = (k: number) => Math.ceil((k + margin) * scale - 1e-9)
  const [r, g, b] = rgbOf(background)
  const put = (x: number, y: number, rgb: readonly number[]) => {
    const i = (y * code.width + x) * 4
    code.data[i] = rgb[0] as number
    code.data[i + 1] = rgb[1] as number
    code.data[i + 2] = rgb[2] as number
    code.data[i + 3] = 255
  }
  const from = pixel(place.square)
  const to = pixel(place.square + place.squareSide)
  for (let y = from; y < to; y++) for (let x = from; x < to; x++) put(x, y, [r, g, b])

  // The logo's box in pixels, its aspect ratio kept.
  const box = place.logoSide * scale
  const fit = Math.min(box / source.width, box / source.height)
  const width = Math.max(1, Math.round(source.width * fit))
  const height = Math.max(1, Math.round(source.height * fit))
  const left = Math.round((place.logo + margin) * scale + (box - width) / 2)
  const top = Math.round((place.logo + margin) * scale + (box - height) / 2)
  const samples = Math.min(8, Math.max(1, Math.ceil(1 / fit)))
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let alpha = 0
      const sum = [0, 0, 0]
      for (let sy = 0; sy < samples; sy++) {
        const py = Math.min(source.height - 1, Math.floor(((y + (sy + 0.5) / samples) * source.height) / height))
        for (let sx = 0; sx < samples; sx++) {
          const px = Math.min(source.width - 1, Math.floor(((x + (sx + 0.5) / samples) * source.width) / width))
          const i = (py * source.width + px) * 4
          const a = (source.data[i + 3] as number) / 255
          alpha += a
          for (let c = 0; c < 3; c++) sum[c] = (sum[c] as number) + (source.data[i + c] as number) * a
        }
      }
      const n = samples * samples
      const covered = alpha / n
      const over = (c: number, under: number) => Math.round((sum[c] as number) / n + under * (1 - covered))
      put(left + x, top + y, [over(0, r), over(1, g), over(2, b)])
    }
  }
  return PNG.sync.write(code)
}
