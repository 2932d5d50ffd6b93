import type { FastifyRequest } from 'fastify'
import { forbidden, unauthorized } from '../shared/errors.js'
import type { TokensService } from '../tokens/tokens.service.js'
import { requestPath } from './request-target.js'
import type { App } from './types.js'

const PUBLIC_V1 = new Set(['/v1/openapi.json'])
// The scheme is case-insensitive (RFC 9110 §11.1).
const BEARER = /^Bearer +([\x21-\x7e]{1,512})$/i

const needsToken = (path: string) => (path === '/v1' || path.startsWith('/v1/')) && !PUBLIC_V1.has(path)

/**
 * Authentication on every `/v1` request — unknown routes included, so that 401 comes before 404 —
 * and then the route's scope (403). A matched route is judged by its pattern (`/v1/links/:id`), not by
 * the target the client spelled, so `/%76%31/links` is authenticated exactly like `/v1/links`; an
 * unmatched one by its decoded path. One indexed lookup by token hash per request: a revoked token
 * is refused on the very next request, whichever process revoked it.
 */
export function registerAuth(app: App, tokens: TokensService): void {
  app.decorateRequest('principal', null as unknown as FastifyRequest['principal'])
  app.addHook('onRequest', async (req) => {
    if (!needsToken(req.routeOptions.url ?? requestPath(req.url))) return
    const match = BEARER.exec(req.headers.authorization ?? '')
    const principal = match ? await tokens.authenticate(match[1] as string) : undefined
    if (!principal) throw unauthorized()
    req.principal = principal
    const scope = req.routeOptions.config.scope
    if (scope && !principal.scopes.has(scope)) throw forbidden(scope)
  })
}
