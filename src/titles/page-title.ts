import { Parser } from 'htmlparser2'
import { TextDecoder } from 'node:util'

/** The longest title taken from a page, in characters (code points); the rest is cut. */
export const PAGE_TITLE_MAX = 200
/** How far into a page a `<meta charset>` is looked for, as browsers do (the HTML standard's prescan). */
const PRESCAN_BYTES = 1024
/** The text of one `<title>` kept before it is cleaned: far more than PAGE_TITLE_MAX, far less than a body. */
const RAW_TITLE_MAX = 64 * 1024
/** The page is fed to the parser in pieces this long, so that it stops soon after what it needs. */
const FEED_CHARS = 16 * 1024
/** Elements that belong in <head>: the first other one starts the body, even without a <body> tag. */
const HEAD_ELEMENTS = new Set(['html', 'head', 'title', 'meta', 'link', 'base', 'script', 'style', 'noscript', 'template'])

/** Whether an answer's Content-Type is an HTML page (`text/html`, any parameters). */
export const isHtml = (contentType: string | undefined): boolean => contentType?.split(';')[0]?.trim().toLowerCase() === 'text/html'

/**
 * The title a page gives itself: its `og:title`, else its `twitter:title`, else its `<title>`; entities
 * decoded (by the parser), white space collapsed, cut to PAGE_TITLE_MAX characters. Undefined when
 * there is none (or only white space). Parsing stops at the end of <head> (or where the body starts),
 * or at once when `og:title` is found.
 */
export function pageTitle(body: Buffer, contentType: string | undefined): string | undefined {
  const html = decoderFor(body, contentType).decode(body)
  const found: { og?: string; twitter?: string; title?: string } = {}
  let titleText: string | undefined
  let done = false
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (done) return
        if (!HEAD_ELEMENTS.has(name)) {
          done = true
          return
        }
        if (name === 'title' && found.title === undefined) titleText = ''
        if (name !== 'meta') return
        const key = (attributes.property ?? attributes.name ?? '').trim().toLowerCase()
        const content = clean(attributes.content ?? '')
        if (content === undefined) return
        if (key === 'og:title') {
          found.og ??= content
          done = true
        } else if (key === 'twitter:title') found.twitter ??= content
      },
      ontext(text) {
        if (titleText !== undefined && titleText.length < RAW_TITLE_MAX) titleText += text
      },
      onclosetag(name) {
        if (name === 'title' && titleText !== undefined) {
          found.title ??= clean(titleText)
          titleText = undefined
        }
        if (name === 'head') done = true
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  )
  for (let at = 0; at < html.length && !done; at += FEED_CHARS) parser.write(html.slice(at, at + FEED_CHARS))
  if (!done) parser.end()
  return found.og ?? found.twitter ?? found.title
}

/** White space collapsed, trimmed, cut to PAGE_TITLE_MAX characters; undefined when nothing is left. */
function clean(text: string): string | undefined {
  const collapsed = text.replace(/\s+/g, ' ').trim()
  if (collapsed === '') return undefined
  // Cut by code points, never inside a surrogate pair; a UTF-16 unit is at most one code point.
  const cut = [...collapsed.slice(0, PAGE_TITLE_MAX * 2)].slice(0, PAGE_TITLE_MAX).join('')
  return cut.trimEnd()
}

/**
 * The decoder of a page's bytes, as a browser picks it: a byte order mark, else the Content-Type's
 * `charset`, else a `<meta charset>` or `<meta http-equiv="Content-Type" content="…; charset=…">` in
 * the first 1024 bytes (read by the same parser), else UTF-8. An encoding label TextDecoder does not
 * know (the WHATWG Encoding standard's labels) is UTF-8 too.
 */
export function decoderFor(body: Buffer, contentType: string | undefined): TextDecoder {
  const bom = body.subarray(0, 3)
  if (bom.equals(Buffer.from([0xef, 0xbb, 0xbf]))) return new TextDecoder('utf-8')
  if (bom[0] === 0xfe && bom[1] === 0xff) return new TextDecoder('utf-16be')
  if (bom[0] === 0xff && bom[1] === 0xfe) return new TextDecoder('utf-16le')
  const label = charsetParameter(contentType) ?? metaCharset(body.subarray(0, PRESCAN_BYTES))
  try {
    const decoder = new TextDecoder(label ?? 'utf-8')
    // A page that says UTF-16 in its own (ASCII) bytes is not UTF-16: the HTML standard reads it as UTF-8.
    return label !== undefined && !charsetParameter(contentType) && decoder.encoding.startsWith('utf-16') ? new TextDecoder('utf-8') : decoder
  } catch {
    return new TextDecoder('utf-8')
  }
}

const charsetParameter = (contentType: string | undefined): string | undefined => /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]?.trim()

/** The encoding a page's first bytes declare in a <meta> tag, read as Latin-1 (every byte one character). */
function metaCharset(head: Buffer): string | undefined {
  let label: string | undefined
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (label !== undefined || name !== 'meta') return
        if (attributes.charset !== undefined && attributes.charset.trim() !== '') label = attributes.charset.trim()
        else if (attributes['http-equiv']?.trim().toLowerCase() === 'content-type') label = charsetParameter(`;${attributes.content ?? ''}`)
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  )
  parser.write(head.toString('latin1'))
  parser.end()
  return label
}
