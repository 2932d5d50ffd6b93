import type { FastifyRequest } from 'fastify'
import type { App } from '../http/types.js'
import { notFound, validationError } from '../shared/errors.js'
import { errorResponses } from '../shared/schema.js'
import type { Principal } from '../tokens/tokens.service.js'
import { setSessionCookie } from './cookie.js'
import { CreateSessionBody, SessionDeletedEnvelope, SessionEnvelope, SessionsDeletedEnvelope, SwitchWorkspaceBody } from './sessions.schemas.js'
import type { SessionsService } from './sessions.service.js'
import type { SignIn } from './sign-in.js'
import { principalOf, refuseCrossSite } from '../http/auth.js'

const tags = ['sessions']
const security: Record<string, string[]>[] = [{ bearer: [] }, { session: [] }]

/** The Session object of a caller (also what the routes that sign someone in answer). */
export const sessionObject = (p: Principal) => ({
  ownerId: p.ownerId,
  scopes: [...p.scopes],
  tokenId: p.tokenId ?? null,
  userId: p.userId ?? null,
  via: p.sessionId === undefined ? ('bearer' as const) : ('session' as const),
})

/** The session a request came with: the resource of a workspace switch and of signing out. */
const sessionOf = (req: FastifyRequest) => req.principal?.sessionId

export function sessionsRoutes(app: App, { sessions, signIn }: { sessions: SessionsService; signIn: SignIn }): void {
  app.post(
    '/v1/sessions',
    {
      schema: {
        tags,
        security: [],
        summary: 'Sign in with an email and password, or an API token: sets the dashboard session cookie',
        description:
          'Sets the `linkline_session` cookie (HttpOnly) that the dashboard uses. Wrong credentials are 401 with one message, whichever field was wrong; password checks are paced, and repeated failures are answered 429.',
        body: CreateSessionBody,
        response: { 201: SessionEnvelope, ...errorResponses },
      },
      config: { audit: { skip: 'the sign-in records session.created or session.failed itself (sign-in.ts), also for a failure' } },
      onRequest: refuseCrossSite,
    },
    async (req, reply) => {
      const { email, password, token } = req.body
      let opened
      if (token !== undefined) {
        if (email !== undefined || password !== undefined) throw validationError('token', 'send either token, or email and password, not both')
        opened = await signIn.withToken(req, token)
      } else {
        if (email === undefined) throw validationError('email', 'email (with password) or token is required')
        if (password === undefined) throw validationError('password', 'password is required with email')
        opened = await signIn.withPassword(req, email, password)
      }
      setSessionCookie(req, reply, opened.value)
      return reply.code(201).send({ success: true, data: { ...sessionObject(opened.principal), via: 'session' } })
    },
  )

  app.get(
    '/v1/sessions/current',
    {
      schema: {
        tags,
        security,
        summary: 'Who is calling: workspace, scopes and how the request authenticated',
        description: 'What the dashboard reads at start: the workspace, the scopes granted, and whether the request came with a session cookie or a token.',
        response: { 200: SessionEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: sessionObject(principalOf(req)) }),
  )

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/v1/sessions/current',
      config: { audit: { resource: 'session', action: 'switched', id: sessionOf } },
      schema: {
        tags,
        security: [{ session: [] }],
        summary: "Switch the signed-in person's session to another of their workspaces",
        description: "Send `workspaceId`, one of the workspaces in `GET /v1/me`; the session's role and scopes become those of that workspace.",
        body: SwitchWorkspaceBody,
        response: { 200: SessionEnvelope, ...errorResponses },
      },
      handler: async (req) => ({ success: true as const, data: sessionObject(await sessions.switchWorkspace(principalOf(req), req.body.workspaceId)) }),
    })
  }

  app.delete(
    '/v1/sessions/current',
    {
      config: { audit: { resource: 'session', id: sessionOf } },
      schema: {
        tags,
        security,
        summary: 'Sign out: end this session',
        description: 'Ends the session of this cookie and clears it; other devices stay signed in.',
        response: { 200: SessionDeletedEnvelope, ...errorResponses },
      },
    },
    async (req, reply) => {
      const { sessionId } = principalOf(req)
      if (sessionId === undefined) throw notFound('session: this request authenticated with a bearer token, not a session cookie')
      await sessions.close(sessionId)
      setSessionCookie(req, reply, null)
      return { success: true as const, data: { deleted: true as const } }
    },
  )

  app.delete(
    '/v1/sessions',
    {
      config: { audit: { resource: 'session', action: 'deleted_everywhere' } },
      schema: {
        tags,
        security,
        summary: "Sign out everywhere: every session of this person (or of this request's token)",
        description: 'Ends every dashboard session of the signed-in person, on every device; API tokens keep working (revoke them under tokens).',
        response: { 200: SessionsDeletedEnvelope, ...errorResponses },
      },
    },
    async (req, reply) => {
      const caller = principalOf(req)
      const deleted = await sessions.closeAll(caller)
      if (caller.sessionId !== undefined) setSessionCookie(req, reply, null)
      return { success: true as const, data: { deleted } }
    },
  )
}
