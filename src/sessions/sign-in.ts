import type { FastifyRequest } from 'fastify'
import type { AccountsService } from '../accounts/accounts.service.js'
import type { AuditService } from '../audit/audit.service.js'
import { clientBlock } from '../http/client-address.js'
import type { App } from '../http/types.js'
import { AppError } from '../shared/errors.js'
import { SsoRefused } from '../sso/sso.errors.js'
import type { Opened, SessionsService } from './sessions.service.js'
import { createSignInLimits } from './sign-in-limits.js'

// Names neither field (which one was wrong is not told); WWW-Authenticate like every 401 of the API.
const wrongCredentials = () => new AppError(401, 'unauthorized', 'wrong email or password', undefined, { 'WWW-Authenticate': 'Bearer' })

/**
 * The ways a browser signs in, behind the sign-in limits (sign-in-limits.ts): a failure (wrong
 * credentials, a refused single sign-on) counts against the address (and the email); after 10 in 15
 * minutes every way is refused before any check.
 *
 * Each sign-in is recorded in the audit log (docs/api/people-and-workspaces.md#audit-log):
 * `session.created` in the workspace the session opened in, before the answer; a wrong password for
 * a known person `session.failed` in each of their workspaces, written after the answer so that it
 * takes as long whether the email is known or not. Unknown emails and tokens belong to no workspace
 * and are not recorded.
 */
export function createSignIn(app: App, deps: { sessions: SessionsService; accounts: AccountsService; audit: AuditService; passwordSignIn: boolean }) {
  const { sessions, accounts, audit, passwordSignIn } = deps
  const limits = createSignInLimits(app)

  const recorded = async (opened: Opened): Promise<Opened> => {
    const { actor, ownerId, sessionId } = opened.principal
    if (actor) await audit.record({ workspaceId: ownerId, actor, action: 'session.created', resourceType: 'session', resourceId: sessionId ?? null })
    return opened
  }

  const recordFailure = async (email: string) => {
    const user = await accounts.findUserByEmail(email)
    if (!user) return
    const actor = { type: 'user' as const, id: user.id, label: user.email }
    const memberships = await accounts.membershipsOf(user.id)
    await audit.record(memberships.map((m) => ({ workspaceId: m.workspaceId, actor, action: 'session.failed', resourceType: 'session', resourceId: null })))
  }

  const counted = async <T>(req: FastifyRequest, open: () => Promise<T>): Promise<T> => {
    await limits.check(req)
    return open().catch(async (error: unknown) => {
      if ((error instanceof AppError && error.statusCode === 401) || error instanceof SsoRefused) await limits.failed(req)
      throw error
    })
  }

  return {
    withToken: (req: FastifyRequest, token: string) => counted(req, async () => recorded(await sessions.open(token, () => limits.admit(req)))),

    withPassword: (req: FastifyRequest, email: string, password: string) =>
      counted(req, async () => {
        if (!passwordSignIn) throw new AppError(403, 'forbidden', 'signing in with a password is turned off here: use single sign-on', 'password')
        const user = await accounts.checkPassword(email, password, clientBlock(req.ip))
        if (!user) {
          recordFailure(email).catch((error: unknown) => req.log.error({ err: error }, 'could not record a failed sign-in in the audit log'))
          throw wrongCredentials()
        }
        return recorded(await sessions.openForUser(user.id))
      }),

    /**
     * Single sign-on's callback (sso.routes.ts): `person` checks the provider's answer and applies the
     * account rules (sso.service.ts), giving the user to sign in; its SsoRefused is a failed sign-in.
     * A provider that cannot be reached (SsoUnavailable) is no one's failure and is not counted.
     */
    withSso: (req: FastifyRequest, person: () => Promise<string>) => counted(req, async () => recorded(await sessions.openForUser(await person()))),

    /** Checks a signed-in person's current password (before it changes); a wrong one counts as a failed sign-in. */
    confirmPassword: (req: FastifyRequest, email: string, password: string) =>
      counted(req, async () => {
        if (!(await accounts.checkPassword(email, password, clientBlock(req.ip))))
          throw new AppError(401, 'unauthorized', 'the current password is wrong', 'currentPassword', { 'WWW-Authenticate': 'Bearer' })
      }),
  }
}

export type SignIn = ReturnType<typeof createSignIn>
