import type { IncomingMessage, ServerResponse } from 'node:http'
import { requestIdOf } from '../http/request-id.js'
import type { Preview } from './link-previews.js'

// Pages with no script and only inline styles; the password form posts to this very URL only.
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
const PAGE_STYLE = 'font-family:system-ui,sans-serif;text-align:center;padding:4rem'
const HEAD = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">'

const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link not found</title></head>' +
  `<body style="${PAGE_STYLE}"><h1>Link not found</h1><p>This short link does not exist or has been removed.</p></body></html>`
// The not-found page has no form either: nothing may be posted from it.
const NOT_FOUND_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const EXPIRED_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link expired</title></head>' +
  `<body style="${PAGE_STYLE}"><h1>Link expired</h1><p>This short link has expired.</p></body></html>`

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The password form; `message` is one of the handler's own sentences, escaped all the same. */
export function passwordPage(message: string): string {
  return (
    `${HEAD}<title>Password required</title></head><body style="${PAGE_STYLE}"><h1>Password required</h1>` +
    (message === '' ? '<p>This link is protected by a password.</p>' : `<p role="alert">${escapeHtml(message)}</p>`) +
    '<form method="post"><label>Password <input type="password" name="password" required minlength="4" maxlength="128" autocomplete="current-password" autofocus></label> ' +
    '<button type="submit">Continue</button></form></body></html>'
  )
}

/**
 * What a visit that is not counted (a bot, no User-Agent, HEAD) gets of a link with maxClicks: no
 * destination, only a link to the very same short URL. Following it is a visit like any other,
 * judged on its own request: a person's browser is counted and redirected, a bot gets this page again.
 */
export function continuePage(path: string, query: string): string {
  const href = escapeHtml(query === '' ? path : `${path}?${query}`)
  return (
    `${HEAD}<meta name="robots" content="noindex,nofollow"><title>Continue</title></head><body style="${PAGE_STYLE}">` +
    `<h1>Continue</h1><p>This link opens once you follow it.</p><p><a href="${href}" rel="nofollow">Continue</a></p></body></html>`
  )
}

/**
 * The crawler's page: Open Graph and Twitter card tags, a `<title>`, and a refresh to the short URL
 * (which a crawler does not follow; a person taken for one would get this page again, and has the
 * link). Every value is HTML-escaped; the page holds no script.
 */
export function previewPage(preview: Preview, shortUrl: string): string {
  const { title, description, image } = preview.fields
  const cardTitle = title ?? preview.linkTitle ?? shortUrl
  const meta = (attribute: 'property' | 'name', key: string, value: string | null) =>
    value === null ? '' : `<meta ${attribute}="${key}" content="${escapeHtml(value)}">`
  const url = escapeHtml(shortUrl)
  return (
    `${HEAD}<title>${escapeHtml(cardTitle)}</title>` +
    meta('name', 'description', description) +
    meta('property', 'og:type', 'website') +
    meta('property', 'og:url', shortUrl) +
    meta('property', 'og:title', cardTitle) +
    meta('property', 'og:description', description) +
    meta('property', 'og:image', image) +
    meta('name', 'twitter:card', image === null ? 'summary' : 'summary_large_image') +
    meta('name', 'twitter:title', cardTitle) +
    meta('name', 'twitter:description', description) +
    meta('name', 'twitter:image', image) +
    `<meta http-equiv="refresh" content="0; url=${url}"></head>` +
    `<body style="${PAGE_STYLE}"><h1>${escapeHtml(cardTitle)}</h1><p><a href="${url}">${url}</a></p></body></html>`
  )
}

/**
 * The status line and headers of each of the handler's answers, the request id and nosniff included,
 * in one writeHead of a flat list: every header given to setHeader beforehand costs Node a validation
 * and a merge of its own, on the redirect's hot path.
 */
export function writeHead(req: IncomingMessage, res: ServerResponse, status: number, headers: (string | number)[]) {
  res.writeHead(status, ['X-Request-Id', requestIdOf(req), 'X-Content-Type-Options', 'nosniff', ...headers])
}

/** A small HTML page, never cached (a password form, an expired link): body omitted for HEAD. */
export function sendPage(req: IncomingMessage, res: ServerResponse, status: number, page: string) {
  writeHead(req, res, status, [
    'Content-Type',
    'text/html; charset=utf-8',
    'Content-Security-Policy',
    PAGE_CSP,
    'Cache-Control',
    'private, no-store',
    'Referrer-Policy',
    'no-referrer',
    'Content-Length',
    Buffer.byteLength(page),
  ])
  res.end(req.method === 'HEAD' ? undefined : page)
}

/** A redirect the handler answers, never cached: the body is empty, `Location` says where. */
export function sendRedirect(req: IncomingMessage, res: ServerResponse, status: number, location: string) {
  writeHead(req, res, status, ['Location', location, 'Cache-Control', 'private, no-store', 'Content-Length', '0'])
  res.end()
}

/** No link at the path: to LINKLINE_NOT_FOUND_URL (302) when set, else 404 with a page. */
export function sendNotFound(req: IncomingMessage, res: ServerResponse, notFoundUrl: string | undefined) {
  if (notFoundUrl !== undefined) return sendRedirect(req, res, 302, notFoundUrl)
  writeHead(req, res, 404, [
    'Content-Type',
    'text/html; charset=utf-8',
    'Content-Security-Policy',
    NOT_FOUND_CSP,
    'Cache-Control',
    'no-store',
    'Content-Length',
    Buffer.byteLength(NOT_FOUND_PAGE),
  ])
  res.end(req.method === 'HEAD' ? undefined : NOT_FOUND_PAGE)
}

/** An expired link (past expiresAt, or maxClicks reached): to its expiredUrl (302), else 410 with a page. */
export function sendExpired(req: IncomingMessage, res: ServerResponse, expiredUrl: string | undefined) {
  if (expiredUrl !== undefined) sendRedirect(req, res, 302, expiredUrl)
  else sendPage(req, res, 410, EXPIRED_PAGE)
}
