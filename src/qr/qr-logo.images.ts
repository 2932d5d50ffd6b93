import { Parser } from 'htmlparser2'
import { PNG } from 'pngjs'
import { validationError } from '../shared/errors.js'

/** The largest logo accepted, in bytes. */
export const LOGO_BYTES = 100 * 1024
/** A PNG logo's largest side: a 4096-pixel code draws its logo at under 900 px, and decoding stays cheap. */
export const LOGO_MAX_SIDE = 1024

export type LogoType = 'image/png' | 'image/svg+xml'
export const LOGO_TYPES: readonly LogoType[] = ['image/png', 'image/svg+xml']

const badLogo = (message: string) => validationError('logo', message)

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/**
 * A PNG logo: the signature, an IHDR of at most LOGO_MAX_SIDE pixels a side (read before anything is
 * inflated, so that a small file cannot unpack into gigabytes), then a full decode (CRCs, data).
 */
export function checkPng(bytes: Buffer): void {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE) || bytes.toString('latin1', 12, 16) !== 'IHDR') {
    throw badLogo('the logo is not a PNG image (no PNG signature and header)')
  }
  const width = bytes.readUInt32BE(16)
  const height = bytes.readUInt32BE(20)
  if (width === 0 || height === 0 || width > LOGO_MAX_SIDE || height > LOGO_MAX_SIDE) {
    throw badLogo(`the logo must be at most ${LOGO_MAX_SIDE}×${LOGO_MAX_SIDE} pixels (this one is ${width}×${height})`)
  }
  try {
    PNG.sync.read(bytes)
  } catch {
    throw badLogo('the logo is a damaged PNG image that cannot be decoded')
  }
}

/** Elements that run code, embed other documents or media: none belongs in a logo. */
const REFUSED_ELEMENTS = new Set(['script', 'foreignobject', 'iframe', 'object', 'embed', 'audio', 'video', 'handler', 'listener'])
/** A `url(…)` that points anywhere but inside the document. */
const EXTERNAL_URL = /url\(\s*['"]?\s*(?!#)/i
const SCRIPT_URL = /^\s*(javascript|vbscript|data)\s*:/i
/** A link a logo may hold: to one of its own elements, or an embedded raster image. */
const INTERNAL_HREF = /^\s*(#|data:image\/(png|jpeg|gif|webp)[;,])/i

/**
 * An SVG logo: UTF-8, one `<svg>` root element in the SVG namespace, every element closed in order,
 * and nothing that runs or fetches: no scripts, event handler attributes, `javascript:` URLs, links or
 * `url()` references outside the document, style imports, or DTD internal subsets (entity expansion).
 * Refused rather than cleaned up: the logo is stored exactly as sent. (Codes carry it as an `<image>`,
 * where browsers run nothing in any case; this also protects the logo served on its own.)
 */
export function checkSvg(bytes: Buffer): void {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw badLogo('the SVG logo is not valid UTF-8 text')
  }
  const problems: string[] = []
  const open: { name: string; selfClosing: boolean }[] = []
  let roots = 0
  let closed = 0
  let inStyle = false
  const parser = new Parser(
    {
      onprocessinginstruction(name, data) {
        const what = name.toLowerCase()
        if (what === '!doctype' && data.includes('[')) problems.push('a DOCTYPE with an internal subset')
        else if (what !== '?xml' && what !== '!doctype') problems.push(`the processing instruction <${data}>`)
      },
      onopentag(name, attributes) {
        const lower = name.toLowerCase()
        if (open.length === 0) {
          roots++
          if (lower !== 'svg') problems.push(`a <${name}> root element (it must be <svg>)`)
          else if (attributes.xmlns !== 'http://www.w3.org/2000/svg') problems.push('an <svg> root without xmlns="http://www.w3.org/2000/svg"')
        }
        if (REFUSED_ELEMENTS.has(lower)) problems.push(`a <${name}> element`)
        inStyle = lower === 'style'
        for (const [attribute, value] of Object.entries(attributes)) {
          const key = attribute.toLowerCase()
          if (key.startsWith('on')) problems.push(`an event handler attribute (${attribute})`)
          else if (key === 'href' || key.endsWith(':href')) {
            if (!INTERNAL_HREF.test(value)) problems.push(`a link outside the document (${attribute}="${value.slice(0, 40)}")`)
          } else if (SCRIPT_URL.test(value) || EXTERNAL_URL.test(value) || /@import/i.test(value))
            problems.push(`a reference outside the document (${attribute})`)
        }
        open.push({ name, selfClosing: text.slice(parser.startIndex, parser.endIndex + 1).endsWith('/>') })
      },
      onclosetag(name, implied) {
        const element = open.pop()
        inStyle = false
        // htmlparser2 closes what was left open (implied); in XML only `<x/>` closes itself.
        if (implied && !element?.selfClosing) problems.push(`an unclosed <${name}>`)
        if (!implied) closed++
      },
      ontext(data) {
        if (open.length === 0 && data.trim() !== '') problems.push('text outside the <svg> element')
        if (inStyle && (EXTERNAL_URL.test(data) || /@import/i.test(data))) problems.push('a style that loads from outside the document')
      },
    },
    { xmlMode: true },
  )
  parser.end(text)
  // A closing tag that matches no open element is skipped by the parser: count them in the text.
  const closingTags = text.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>/g, '').split('</').length - 1
  if (closingTags !== closed) problems.push('a closing tag that matches no open element')
  if (roots !== 1) problems.push(roots === 0 ? 'no <svg> element' : 'more than one root element')
  if (problems.length > 0) throw badLogo(`the SVG logo is refused: it has ${problems[0]}`)
}

/** Checks an uploaded logo by its type (throws 400 `logo`). */
export function checkLogo(type: LogoType, bytes: Buffer): void {
  if (bytes.length === 0) throw badLogo('the logo is empty')
  if (type === 'image/png') checkPng(bytes)
  else checkSvg(bytes)
}
