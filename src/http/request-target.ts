/**
 * The path a request-target names, decoded as the router decodes it (`/%76%31/links` is `/v1/links`),
 * without the query. Every check that looks at a path (authentication of unknown routes, 404 vs 405)
 * reads this, never the raw target, so that another spelling of a path cannot take another branch.
 */
export function requestPath(rawUrl: string): string {
  const q = rawUrl.indexOf('?')
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q)
  if (!path.includes('%')) return path
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

/** Only origin-form targets (`/path?query`) are served; `http://host/path` (absolute-form) is refused with 400. */
export const isOriginForm = (rawUrl: string): boolean => rawUrl.startsWith('/')
