import type { FastifyRequest } from 'fastify'
import { forbidden, unauthorized } from '../shared/errors.js'
import type { TokensService } from '../tokens/tokens.service.js'
import type { App } from './types.js'

const PUBLIC_V1 = new Set(['/v1/openapi.json'])
const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/

const needsToken = (path: string) => (path === '/v1' || path.startsWith('/v1/')) && !PUBLIC_V1.has(path)

/**
 * Authentication on every `/v1` request — unknown routes included, so that 401 comes before 404 —
 * and then the route's scope (403). One indexed lookup by token hash per request: a revoked token
 * is refused on the very next request, whichever process revoked it.
 */
export function registerAuth(app: App, tokens: TokensService): void {
  app.decorateRequest('principal', null as unknown as FastifyRequest['principal'])
  app.addHook('onRequest', async (req) => {
    if (!needsToken(req.url.split('?')[0] as string)) return
    const match = BEARER.exec(req.headers.authorization ?? '')
    const principal = match ? await tokens.authenticate(match[1] as string) : undefined
    if (!principal) throw unauthorized()
    req.principal = principal
    const scope = req.routeOptions.config.scope
    if (scope && !principal.scopes.has(scope)) throw forbidden(scope)
  })
}
