import type { FastifyRequest } from 'fastify'
import { principalOf, refuseCrossSite, sameOrigin } from '../http/auth.js'
import type { Config } from '../config.js'
import { publicBaseUrl } from '../http/public-url.js'
import type { App } from '../http/types.js'
import { AppError } from '../shared/errors.js'
import { errorResponses } from '../shared/schema.js'
import { sessionCookie, setSessionCookie } from '../sessions/cookie.js'
import { sessionObject } from '../sessions/sessions.routes.js'
import { SessionEnvelope } from '../sessions/sessions.schemas.js'
import type { SessionsService } from '../sessions/sessions.service.js'
import type { AuditService } from '../audit/audit.service.js'
import { recordJoined } from './joined.js'
import {
  AcceptInvitationBody,
  CreateInvitationBody,
  InvitationDeletedEnvelope,
  InvitationEnvelope,
  InvitationListEnvelope,
  InvitationParams,
} from './invitations.schemas.js'
import type { InvitationsService } from './invitations.service.js'

const tags = ['members']
const security: Record<string, string[]>[] = [{ bearer: [] }, { session: [] }]

/** Invitations to a workspace, and accepting one (docs/api/people-and-workspaces.md#invitations). */
export function invitationsRoutes(
  app: App,
  deps: { invitations: InvitationsService; sessions: SessionsService; audit: AuditService; config: Pick<Config, 'host' | 'port'> },
): void {
  const { invitations, sessions, audit, config } = deps

  /**
   * The person signed in with the session cookie, for accepting with their account. The route is open
   * to anyone (no auth hook), so the cookie's rule is applied here: a change it authorises must come
   * with an Origin of this host.
   */
  const signedInPerson = async (req: FastifyRequest) => {
    const cookie = req.headers.authorization === undefined ? sessionCookie(req) : undefined
    if (cookie === undefined) return undefined
    if (!sameOrigin(req)) throw new AppError(403, 'forbidden', "accepting signed in must come from the dashboard's own origin (Origin header)", 'Origin')
    return sessions.authenticate(cookie)
  }

  app.post(
    '/v1/invitations',
    {
      config: { scope: 'members:write', audit: { resource: 'invitation' } },
      schema: {
        tags,
        security,
        summary: 'Invite a person to this workspace: a one-time link, valid 7 days, shown only in this response',
        description:
          'Send `email` and `role`. The answer carries the invitation link once (only a hash is kept); it is also mailed when mail is configured. A new invitation to the same email replaces the pending one.',
        body: CreateInvitationBody,
        response: { 201: InvitationEnvelope, ...errorResponses },
      },
    },
    async (req, reply) => reply.code(201).send({ success: true, data: await invitations.create(principalOf(req), req.body, publicBaseUrl(req, config)) }),
  )

  app.get(
    '/v1/invitations',
    {
      config: { scope: 'members:read' },
      schema: {
        tags,
        security,
        summary: 'Invitations that can still be accepted (never their link)',
        description: 'Pending invitations with their email, role, inviter and expiry; accepted, revoked and expired ones are not listed.',
        response: { 200: InvitationListEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await invitations.list(principalOf(req)) }),
  )

  app.delete(
    '/v1/invitations/:id',
    {
      config: { scope: 'members:write', audit: { resource: 'invitation', action: 'revoked' } },
      schema: {
        tags,
        security,
        summary: 'Revoke a pending invitation: its link stops working',
        description: 'Its link stops working at once; an invitation already used or expired is 404.',
        params: InvitationParams,
        response: { 200: InvitationDeletedEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: { id: (await invitations.revoke(principalOf(req), req.params.id)).id, deleted: true as const } }),
  )

  app.post(
    '/v1/invitations/accept',
    {
      config: { audit: { skip: 'no one is signed in before it: the route records member.joined as the person who joined' } },
      schema: {
        tags,
        security: [],
        summary: 'Accept an invitation and sign in: create an account (secret, name, password), or join signed in (secret alone)',
        description:
          'No token needed: the secret is the credential. A new person sends a name and a password; a person already signed in sends the secret alone and the workspace is added to theirs. A used, revoked or expired secret is 410.',
        body: AcceptInvitationBody,
        response: { 201: SessionEnvelope, ...errorResponses },
      },
      onRequest: refuseCrossSite,
    },
    async (req, reply) => {
      const { secret, ...input } = req.body
      const person = input.password === undefined && input.name === undefined ? await signedInPerson(req) : undefined
      const opened = await invitations.accept(secret, input, person)
      await recordJoined(audit, opened.principal)
      setSessionCookie(req, reply, opened.value)
      return reply.code(201).send({ success: true, data: { ...sessionObject(opened.principal), via: 'session' } })
    },
  )
}
