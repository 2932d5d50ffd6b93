import type { App } from '../http/types.js'
import { AppError, notFound } from '../shared/errors.js'
import { errorResponses } from '../shared/schema.js'
import type { Principal } from '../tokens/tokens.service.js'
import { setSessionCookie } from './cookie.js'
import { CreateSessionBody, SessionDeletedEnvelope, SessionEnvelope } from './sessions.schemas.js'
import type { SessionsService } from './sessions.service.js'
import { createSignInLimits } from './sign-in-limits.js'
import { principalOf, refuseCrossSite } from '../http/auth.js'

const tags = ['sessions']
const security: Record<string, string[]>[] = [{ bearer: [] }, { session: [] }]

const describe = (p: Principal) => ({
  ownerId: p.ownerId,
  scopes: [...p.scopes],
  tokenId: p.tokenId,
  via: p.sessionId === undefined ? ('bearer' as const) : ('session' as const),
})

export function sessionsRoutes(app: App, { sessions }: { sessions: SessionsService }): void {
  const limits = createSignInLimits(app)
  app.post(
    '/v1/sessions',
    {
      schema: {
        tags,
        security: [],
        summary: 'Sign in: exchange an API token for the dashboard session cookie',
        body: CreateSessionBody,
        response: { 201: SessionEnvelope, ...errorResponses },
      },
      onRequest: refuseCrossSite,
    },
    async (req, reply) => {
      await limits.check(req)
      const { value, principal } = await sessions
        .open(req.body.token, () => limits.admit(req))
        .catch(async (error: unknown) => {
          if (error instanceof AppError && error.statusCode === 401) await limits.failed(req)
          throw error
        })
      setSessionCookie(req, reply, value)
      return reply.code(201).send({ success: true, data: { ...describe(principal), via: 'session' } })
    },
  )

  app.get(
    '/v1/sessions/current',
    {
      schema: {
        tags,
        security,
        summary: 'Who is calling: owner, scopes and how the request authenticated',
        response: { 200: SessionEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: describe(principalOf(req)) }),
  )

  app.delete(
    '/v1/sessions/current',
    {
      schema: { tags, security, summary: 'Sign out: end this session', response: { 200: SessionDeletedEnvelope, ...errorResponses } },
    },
    async (req, reply) => {
      const { sessionId } = principalOf(req)
      if (sessionId === undefined) throw notFound('session: this request authenticated with a bearer token, not a session cookie')
      await sessions.close(sessionId)
      setSessionCookie(req, reply, null)
      return { success: true as const, data: { deleted: true as const } }
    },
  )
}
