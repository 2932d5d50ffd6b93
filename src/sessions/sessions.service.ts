import { randomBytes } from 'node:crypto'
import { scopesOfRole } from '../accounts/roles.js'
import type { AccountsService } from '../accounts/accounts.service.js'
import type { Clock } from '../shared/clock.js'
import { AppError, notFound } from '../shared/errors.js'
import { newId } from '../shared/ids.js'
import { hashToken, type Principal, type TokensService } from '../tokens/tokens.service.js'
import type { SessionsRepository } from './sessions.repository.js'
import type { SessionRow } from './sessions.table.js'

/** A session ends after this long without a request (docs/api/sessions-and-dashboard.md#sessions). */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000
/** …and this long after it was opened, however much it is used. */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000

/**
 * `last_used_at` moves at most this often: a dashboard makes many requests a minute, and one write
 * per request would be a write per read. The idle limit is then exact to within this much.
 */
const TOUCH_EVERY_MS = 60_000

export interface SessionPrincipal extends Principal {
  readonly sessionId: string
  /** Whether this request moved the session's last use (the cookie is then sent again, for another 7 days). */
  readonly renewed: boolean
}

export interface Opened {
  /** The cookie's value (256 random bits), shown once; only its hash is stored. */
  value: string
  principal: Principal
}

export function createSessionsService(deps: { repo: SessionsRepository; tokens: TokensService; accounts: AccountsService; clock: Clock }) {
  const { repo, tokens, accounts, clock } = deps

  async function insert(fields: { token_id: string } | { user_id: string; workspace_id: string }): Promise<{ id: string; value: string }> {
    const value = randomBytes(32).toString('base64url')
    const now = clock.now()
    const id = newId('ses')
    await repo.insert({ id, session_hash: hashToken(value), token_id: null, user_id: null, workspace_id: null, ...fields, created_at: now, last_used_at: now })
    return { id, value }
  }

  /** The caller a person's session stands for: their role in the session's workspace, if they still have one. */
  async function personIn(userId: string, workspaceId: string): Promise<Principal | undefined> {
    const [user, role] = await Promise.all([accounts.findUser(userId), accounts.roleOf(userId, workspaceId)])
    if (!user || role === undefined) return undefined
    return { ownerId: workspaceId, scopes: scopesOfRole(role), role, userId, actor: { type: 'user', id: userId, label: user.email } }
  }

  const principalOf = (session: SessionRow): Promise<Principal | undefined> =>
    session.token_id !== null ? tokens.authenticateById(session.token_id) : personIn(session.user_id as string, session.workspace_id as string)

  return {
    /**
     * Opens a session acting as `token`. `admit` may refuse a valid token before the session exists
     * (a limit on sign-ins).
     */
    async open(token: string, admit?: () => Promise<void>): Promise<Opened> {
      const principal = await tokens.authenticate(token)
      if (!principal) throw new AppError(401, 'unauthorized', 'this token is unknown or revoked', 'token', { 'WWW-Authenticate': 'Bearer' })
      await admit?.()
      const { id, value } = await insert({ token_id: principal.tokenId as string })
      return { value, principal: { ...principal, sessionId: id } }
    },

    /**
     * Signs a person in: the workspace they were last in when they still belong to it, else their
     * first one. 403 for someone who belongs to no workspace (removed from every one).
     */
    async openForUser(userId: string, preferred?: string): Promise<Opened> {
      const memberships = await accounts.membershipsOf(userId)
      const workspaceId = memberships.find((m) => m.workspaceId === preferred)?.workspaceId ?? memberships[0]?.workspaceId
      if (workspaceId === undefined) throw new AppError(403, 'forbidden', 'this account belongs to no workspace any more; ask an admin for an invitation')
      const principal = await personIn(userId, workspaceId)
      if (!principal) throw new AppError(403, 'forbidden', 'this account belongs to no workspace any more; ask an admin for an invitation')
      const { id, value } = await insert({ user_id: userId, workspace_id: workspaceId })
      await accounts.recordSignIn(userId)
      return { value, principal: { ...principal, sessionId: id } }
    },

    /** The session behind a cookie value, if it is still valid; records its use. */
    async authenticate(value: string): Promise<SessionPrincipal | undefined> {
      const session = await repo.findByHash(hashToken(value))
      if (!session) return undefined
      const now = clock.now()
      const expired = now - Number(session.last_used_at) >= SESSION_IDLE_MS || now - Number(session.created_at) >= SESSION_LIFETIME_MS
      // Judged before its token is: a dead session's cookie is no use of the token (its lastUsedAt stays).
      const principal = expired ? undefined : await principalOf(session)
      if (!principal) {
        await repo.delete(session.id)
        return undefined
      }
      const renewed = now - Number(session.last_used_at) >= TOUCH_EVERY_MS
      if (renewed) await repo.touch(session.id, now)
      return { ...principal, sessionId: session.id, renewed }
    },

    /** Moves a person's session to another of their workspaces; 404 for one they do not belong to. */
    async switchWorkspace(caller: Principal, workspaceId: string): Promise<Principal> {
      if (caller.sessionId === undefined || caller.tokenId !== undefined || caller.userId === undefined) {
        throw notFound('session of a person: only a signed-in person switches workspaces', 'workspaceId')
      }
      const principal = await personIn(caller.userId, workspaceId)
      if (!principal) throw notFound('workspace among yours', 'workspaceId')
      await repo.setWorkspace(caller.sessionId, workspaceId)
      return { ...principal, sessionId: caller.sessionId }
    },

    close: (sessionId: string) => repo.delete(sessionId),

    /** Signs out everywhere: every session of the person (or of the token) behind `caller`. */
    closeAll: (caller: Principal) => (caller.actor?.type === 'user' ? repo.deleteForUser(caller.actor.id) : repo.deleteForToken(caller.tokenId ?? '')),

    /** Ends a person's sessions: in one workspace (they left it), or all but one (their password changed). */
    endForUser: (userId: string, options: { workspaceId?: string; except?: string } = {}) => repo.deleteForUser(userId, options),

    prune: () => repo.prune(clock.now() - SESSION_IDLE_MS, clock.now() - SESSION_LIFETIME_MS),
  }
}

export type SessionsService = ReturnType<typeof createSessionsService>
