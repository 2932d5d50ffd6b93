import type { FastifyRequest } from 'fastify'
import { AppError, forbidden, unauthorized } from '../shared/errors.js'
import { sessionCookie, setSessionCookie } from '../sessions/cookie.js'
import type { SessionsService } from '../sessions/sessions.service.js'
import type { Principal, TokensService } from '../tokens/tokens.service.js'
import type { AnonymousLimit } from './anonymous-limit.js'
import { requestPath } from './request-target.js'
import type { App } from './types.js'

/**
 * `/v1` routes open to anyone: the OpenAPI document, signing in (with a token or a password in the
 * body, or single sign-on), and what a one-time secret in the body authorises (accepting an
 * invitation, a password reset, the setup). Signing out everywhere (`DELETE /v1/sessions`) is not:
 * it needs the session it ends.
 */
const PUBLIC_V1 = new Set([
  '* /v1/openapi.json',
  'POST /v1/sessions',
  '* /v1/auth/methods',
  '* /v1/auth/oidc/start',
  '* /v1/auth/oidc/callback',
  'POST /v1/invitations/accept',
  'POST /v1/password-reset',
  'POST /v1/setup',
])
// The scheme is case-insensitive (RFC 9110 §11.1).
const BEARER = /^Bearer +([\x21-\x7e]{1,512})$/i
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** What is under it is open to anyone, on purpose: the public statistics of links whose owner chose so. */
const PUBLIC_PREFIX = '/v1/public/'

const needsToken = (method: string, path: string) =>
  (path === '/v1' || path.startsWith('/v1/')) && !path.startsWith(PUBLIC_PREFIX) && !PUBLIC_V1.has(`* ${path}`) && !PUBLIC_V1.has(`${method} ${path}`)

/** Whether the request's Origin names the very host it was sent to (scheme aside: a proxy may end TLS). */
export function sameOrigin(req: FastifyRequest): boolean {
  const origin = req.headers.origin
  if (origin === undefined || origin === 'null') return false
  try {
    return new URL(origin).host.toLowerCase() === req.host.toLowerCase()
  } catch {
    return false
  }
}

const crossOrigin = (what: string) => new AppError(403, 'forbidden', `${what} must come from the dashboard's own origin (Origin header)`, 'Origin')

/**
 * onRequest hook of the routes that sign a browser in: a page on another site must not sign its
 * visitor in as someone else (login CSRF), so an Origin other than this host is refused, and without
 * an Origin so is `Sec-Fetch-Site: cross-site`. A program that sends neither (curl) is not a browser.
 */
export async function refuseCrossSite(req: FastifyRequest): Promise<void> {
  const crossSite = req.headers.origin !== undefined ? !sameOrigin(req) : req.headers['sec-fetch-site'] === 'cross-site'
  if (crossSite) throw crossOrigin('signing in')
}

/**
 * Authentication on every `/v1` request — unknown routes included, so that 401 comes before 404 —
 * and then the route's scope (403). A matched route is judged by its pattern (`/v1/links/:id`), not by
 * the target the client spelled, so `/%76%31/links` is authenticated exactly like `/v1/links`; an
 * unmatched one by its decoded path. One indexed lookup by token hash per request: a revoked token
 * is refused on the very next request, whichever process revoked it.
 *
 * Without an Authorization header, the dashboard's session cookie stands for the token it was opened
 * with. A cookie-authenticated request that changes state must carry an Origin of this very host
 * (403 otherwise): with SameSite=Strict that is the second wall against cross-site requests.
 *
 * The anonymous limit (anonymous-limit.ts) is applied here, to every request that does not
 * authenticate: valid credentials always pass (people behind one NAT share an address), and a request
 * without any is refused before a token lookup. Off the token routes (the dashboard's files, sign-in,
 * unknown paths) credentials are looked up only when the address is over its budget.
 */
export function registerAuth(app: App, deps: { tokens: TokensService; sessions: SessionsService; anonymousLimit: AnonymousLimit }): void {
  const { tokens, sessions, anonymousLimit } = deps
  const authenticate = (authorization: string | undefined, cookie: string | undefined) => {
    if (cookie !== undefined) return sessions.authenticate(cookie)
    const match = BEARER.exec(authorization ?? '')
    return match ? tokens.authenticate(match[1] as string) : undefined
  }
  app.decorateRequest('principal', null)
  app.addHook('onRequest', async (req, reply) => {
    const refusal = anonymousLimit(req)
    const authorization = req.headers.authorization
    const cookie = authorization === undefined ? sessionCookie(req) : undefined
    if (!needsToken(req.method, req.routeOptions.url ?? requestPath(req.url))) {
      if (refusal && !(await authenticate(authorization, cookie))) throw refusal
      return
    }
    const principal = await authenticate(authorization, cookie)
    if (!principal) {
      if (refusal) throw refusal
      if (cookie === undefined) throw unauthorized()
      setSessionCookie(req, reply, null)
      throw unauthorized('the session has ended (signed out, expired after 7 days without use, or its token was revoked); sign in again')
    }
    if (cookie !== undefined) {
      if (!SAFE_METHODS.has(req.method) && !sameOrigin(req)) throw crossOrigin('a request signed in with the session cookie that changes something')
      if ('renewed' in principal && principal.renewed) setSessionCookie(req, reply, cookie)
    }
    req.principal = principal
    const scope = req.routeOptions.config.scope
    if (scope && !principal.scopes.has(scope)) throw forbidden(scope)
  })
}

/** The caller of a route behind the auth hook (which answered 401 without one). */
export function principalOf(req: FastifyRequest): Principal {
  if (req.principal === null) throw unauthorized()
  return req.principal
}
