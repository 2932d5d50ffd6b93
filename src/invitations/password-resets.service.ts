import type { AccountsService } from '../accounts/accounts.service.js'
import type { UserRow } from '../accounts/accounts.table.js'
import type { Actor } from '../shared/actor.js'
import type { Clock } from '../shared/clock.js'
import { gone } from '../shared/errors.js'
import type { SessionsService } from '../sessions/sessions.service.js'
import type { Principal } from '../tokens/tokens.service.js'
import { memberNotFound, notAPerson, onlyOwnersResetOwners } from './invitations.errors.js'
import { linkUrl, PASSWORD_RESET_TTL_MS, type OneTimeLinks } from './one-time-links.service.js'

export interface ResetLink {
  url: string
  expiresAt: string
}

const WHAT = 'password reset link'

/** Passwords set through a one-time link, or changed by their owner (docs/api/people-and-workspaces.md#passwords). */
export function createPasswordResetsService(deps: { links: OneTimeLinks; accounts: AccountsService; sessions: SessionsService; clock: Clock }) {
  const { links, accounts, sessions, clock } = deps

  /**
   * A link that sets `user`'s password, valid `ttlMs` (an hour by default). It replaces their earlier
   * unused ones: only the newest works.
   */
  async function issue(user: UserRow, workspaceId: string, base: string, options: { ttlMs?: number; createdBy?: Actor } = {}): Promise<ResetLink> {
    await links.repo.revokeForUser('password_reset', user.id, clock.now())
    const { row, secret } = await links.issue(
      { kind: 'password_reset', workspaceId, email: user.email, userId: user.id, createdBy: options.createdBy },
      options.ttlMs ?? PASSWORD_RESET_TTL_MS,
    )
    return { url: linkUrl(base, 'password_reset', secret), expiresAt: new Date(Number(row.expires_at)).toISOString() }
  }

  return {
    issue,

    /**
     * A reset link for a member of the caller's workspace (404 for anyone else). Only an owner resets an
     * owner's password (403): else an admin could take an owner's account over.
     */
    async issueForMember(caller: Principal, userId: string, base: string): Promise<ResetLink> {
      const role = await accounts.roleOf(userId, caller.ownerId)
      const user = role === undefined ? undefined : await accounts.findUser(userId)
      if (!user) throw memberNotFound()
      if (role === 'owner' && caller.role !== 'owner') throw onlyOwnersResetOwners()
      return issue(user, caller.ownerId, base, { createdBy: caller.actor })
    },

    /** Sets the password a reset link was made for, and ends every session of that person. */
    async reset(secret: string, password: string): Promise<{ userId: string; email: string }> {
      const link = await links.usable(secret, 'password_reset', WHAT, 'secret')
      const user = link.user_id === null ? undefined : await accounts.findUser(link.user_id)
      // Their account was removed since: the link opens nothing.
      if (!user) throw gone(WHAT, 'secret')
      const hash = await accounts.passwordHashFor(user, password)
      await links.useThen(link, WHAT, 'secret', (trx) => accounts.storePasswordHash(user.id, hash, trx))
      await sessions.endForUser(user.id)
      return { userId: user.id, email: user.email }
    },

    /** The person a request stands for, when it comes with their own session; 403 otherwise (a token, a token's session). */
    async personOf(caller: Principal): Promise<UserRow & { sessionId: string }> {
      const user =
        caller.sessionId !== undefined && caller.tokenId === undefined && caller.userId !== undefined ? await accounts.findUser(caller.userId) : undefined
      if (!user || caller.sessionId === undefined) throw notAPerson()
      return { ...user, sessionId: caller.sessionId }
    },

    /** Sets a signed-in person's new password (the current one checked already) and ends their other sessions; returns how many. */
    async changeOwn(person: { id: string; sessionId: string }, password: string): Promise<number> {
      await accounts.setPassword(person.id, password)
      return sessions.endForUser(person.id, { except: person.sessionId })
    },
  }
}

export type PasswordResetsService = ReturnType<typeof createPasswordResetsService>
