import { principalOf, refuseCrossSite } from '../http/auth.js'
import type { Config } from '../config.js'
import { publicBaseUrl } from '../http/public-url.js'
import type { App } from '../http/types.js'
import { errorResponses } from '../shared/schema.js'
import { MemberParams } from '../accounts/accounts.schemas.js'
import { setSessionCookie } from '../sessions/cookie.js'
import { sessionObject } from '../sessions/sessions.routes.js'
import { SessionEnvelope } from '../sessions/sessions.schemas.js'
import type { SignIn } from '../sessions/sign-in.js'
import { ChangePasswordBody, PasswordChangedEnvelope, PasswordResetEnvelope, ResetLinkEnvelope, ResetPasswordBody, SetupBody } from './invitations.schemas.js'
import { assertPersonSession, type PasswordResetsService } from './password-resets.service.js'
import type { SetupService } from './setup.service.js'
import type { AuditService } from '../audit/audit.service.js'
import { recordJoined } from './joined.js'

const security: Record<string, string[]>[] = [{ bearer: [] }, { session: [] }]

/** Password resets, changing one's own password, and the first owner's setup (docs/api/people-and-workspaces.md#passwords). */
export function passwordsRoutes(
  app: App,
  deps: { resets: PasswordResetsService; setup: SetupService; signIn: SignIn; audit: AuditService; config: Pick<Config, 'host' | 'port'> },
): void {
  const { resets, setup, signIn, audit, config } = deps

  app.post(
    '/v1/members/:userId/password-reset',
    {
      config: { scope: 'members:write', audit: { resource: 'member', action: 'password_reset_issued', id: 'userId' } },
      schema: {
        tags: ['members'],
        security,
        summary: "A one-time link (1 hour) that sets a member's new password; only an owner makes one for an owner",
        description: 'The answer carries the link once; hand it to the member. It works once, for an hour.',
        params: MemberParams,
        response: { 201: ResetLinkEnvelope, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send({ success: true, data: await resets.issueForMember(principalOf(req), req.params.userId, publicBaseUrl(req, config)) }),
  )

  app.post(
    '/v1/password-reset',
    {
      config: { audit: { skip: 'the person acts with a secret, not signed in; the link was recorded when issued (member.password_reset_issued)' } },
      schema: {
        tags: ['sessions'],
        security: [],
        summary: "Set a new password with a reset link's secret: every session of that person ends",
        description:
          'No token needed: the secret is the credential. The new password needs at least 10 characters; the person is signed out everywhere and signs in again.',
        body: ResetPasswordBody,
        response: { 200: PasswordResetEnvelope, ...errorResponses },
      },
      onRequest: refuseCrossSite,
    },
    async (req) => ({ success: true as const, data: await resets.reset(req.body.secret, req.body.password) }),
  )

  app.post(
    '/v1/me/password',
    {
      config: { audit: { resource: 'user', action: 'password_changed', id: (req) => principalOf(req).userId } },
      schema: {
        tags: ['sessions'],
        security: [{ session: [] }],
        summary: 'Change your password (signed in): your other sessions end',
        description: 'Send the current and the new password; this session stays signed in, every other one ends.',
        body: ChangePasswordBody,
        response: { 200: PasswordChangedEnvelope, ...errorResponses },
      },
      // Before the body is read: who may call comes before what they sent.
      onRequest: async (req) => assertPersonSession(principalOf(req)),
    },
    async (req) => {
      const person = await resets.personOf(principalOf(req))
      await signIn.confirmPassword(req, person.email, req.body.currentPassword)
      return { success: true as const, data: { changed: true as const, sessionsEnded: await resets.changeOwn(person, req.body.password) } }
    },
  )

  app.post(
    '/v1/setup',
    {
      config: { audit: { skip: 'no one is signed in before it: the route records member.joined as the first owner' } },
      schema: {
        tags: ['sessions'],
        security: [],
        summary: "Create the first owner of a new server's workspace with the setup code it printed, and sign in",
        description: 'Works once, for a workspace that has no member yet, with the setup code the server printed at start; afterwards the code is 410.',
        body: SetupBody,
        response: { 201: SessionEnvelope, ...errorResponses },
      },
      onRequest: refuseCrossSite,
    },
    async (req, reply) => {
      const { code, ...person } = req.body
      const opened = await setup.setup(code, person)
      await recordJoined(audit, opened.principal)
      setSessionCookie(req, reply, opened.value)
      return reply.code(201).send({ success: true, data: { ...sessionObject(opened.principal), via: 'session' } })
    },
  )
}
