import { dotSegment, reservedPath } from './links.errors.js'

/** First path segments that Linkline serves itself, on every host (so that no domain can shadow the API). */
export const RESERVED_SEGMENTS = new Set(['v1', 'docs', 'healthz', 'readyz', 'metrics', 'app', 'favicon.ico', 'robots.txt', '.well-known'])

/** The first segment of a path: `/v1/links` → `v1`, `/sale` → `sale`. */
export function firstSegment(path: string): string {
  const end = path.indexOf('/', 1)
  return end === -1 ? path.slice(1) : path.slice(1, end)
}

/** Whether Linkline serves the path itself, on every host: no link may take it, and the redirect leaves it to the API. */
export const isReservedPath = (path: string): boolean => RESERVED_SEGMENTS.has(firstSegment(path))

/** Refuses a path no link may take: one Linkline serves itself, or one no client could ever visit. */
export function checkPath(path: string): void {
  if (isReservedPath(path)) throw reservedPath(path)
  // Every WHATWG client turns /a/. into /a/ and /a/.. into / before sending: such a link could never be visited.
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) throw dotSegment()
}

/** Query parameter that marks a visit as a QR scan (the QR code's URL carries it); stripped before the destination sees the query. */
export const QR_MARKER = 'qr'
