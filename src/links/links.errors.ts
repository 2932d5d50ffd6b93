import { conflict, notFound, validationError } from '../shared/errors.js'

export const linkNotFound = (param?: string) => notFound('link', param)
export const pathTaken = (domain: string, path: string) => conflict(`${domain}${path} is already taken`, 'path')
export const invalidDestination = (param = 'destination') => validationError(param, `${param} must be an absolute http or https URL with a host`)
export const destinationControlCharacter = (param = 'destination') =>
  validationError(param, `${param} must not contain control characters (U+0000-U+001F, U+007F)`)
export const destinationTooLong = (max: number, param = 'destination') =>
  validationError(param, `${param} must be at most ${max} characters once percent-encoded`)
export const destinationLoops = (param = 'destination') => validationError(param, `${param} points at this very short link, which would redirect to itself`)
export const destinationChainTooLong = (hops: number, param = 'destination') =>
  validationError(param, `${param} goes through more than ${hops} short links of this service; point it at the final URL`)
export const expiresAtInvalid = () => validationError('expiresAt', 'expiresAt must be an ISO 8601 date-time with a time zone, e.g. 2026-12-31T23:59:59Z')
export const reservedPath = (path: string) => validationError('path', `path "${path}" is served by Linkline itself, on every domain`)
export const notAHost = (param: string, value: string) => validationError(param, `${param} must be a host or host:port, got "${value}"`)
export const sameDomain = () => validationError('to', 'the two domains are the same')
export const notADefaultDomain = (to: string) => validationError('to', `${to} is not in LINKLINE_DOMAINS: links moved there would answer 404 too`)
export const customDomainNotMovable = (from: string) =>
  validationError('from', `${from} is a custom domain: its owner moves its links through the API (PUT /v1/links/{id})`)
/** Names the first paths in the way, so that the operator can move or delete those links first. */
export const domainMoveConflicts = (from: string, to: string, paths: string[], shown = 20) =>
  conflict(
    `nothing moved: ${paths.length} path(s) of ${from} are taken on ${to} or served by Linkline itself there: ` +
      `${paths.slice(0, shown).join(', ')}${paths.length > shown ? `, … (${paths.length - shown} more)` : ''}`,
    'to',
  )
export const dotSegment = () => validationError('path', 'a path segment may not be . or .. (browsers resolve them away before visiting)')
export const titleAndDisplayName = () => validationError('display_name', 'send title or display_name (an alias of title), not both')
export const notALinkBody = () => validationError('', 'each item of links must be an object: a body as POST /v1/links takes')
export const tooManyPasswords = (max: number) =>
  validationError('password', `at most ${max} links of one bulk request may set a password (each costs a slow hash); send the others in another request`)
