import { randomBytes } from 'node:crypto'
import type { Clock } from '../shared/clock.js'
import { AppError } from '../shared/errors.js'
import { newId } from '../shared/ids.js'
import { hashToken, type Principal, type TokensService } from '../tokens/tokens.service.js'
import type { SessionsRepository } from './sessions.repository.js'

/** A session ends after this long without a request (docs/api/sessions-and-dashboard.md#sessions). */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000
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

export function createSessionsService(deps: { repo: SessionsRepository; tokens: TokensService; clock: Clock }) {
  const { repo, tokens, clock } = deps
  return {
    /**
     * Opens a session acting as `token`; returns the cookie's value (256 random bits), shown once.
     * `admit` may refuse a valid token before the session exists (a limit on sign-ins).
     */
    async open(token: string, admit?: () => Promise<void>): Promise<{ value: string; principal: Principal }> {
      const principal = await tokens.authenticate(token)
      if (!principal) throw new AppError(401, 'unauthorized', 'this token is unknown or revoked', 'token', { 'WWW-Authenticate': 'Bearer' })
      await admit?.()
      const value = randomBytes(32).toString('base64url')
      const now = clock.now()
      await repo.insert({ id: newId('ses'), session_hash: hashToken(value), token_id: principal.tokenId, created_at: now, last_used_at: now })
      return { value, principal }
    },

    /** The session behind a cookie value, if it is still valid; records its use. */
    async authenticate(value: string): Promise<SessionPrincipal | undefined> {
      const session = await repo.findActiveByHash(hashToken(value))
      if (!session) return undefined
      const now = clock.now()
      if (now - session.lastUsedAt >= SESSION_IDLE_MS) {
        await repo.delete(session.id)
        return undefined
      }
      const renewed = now - session.lastUsedAt >= TOUCH_EVERY_MS
      if (renewed) await repo.touch(session.id, now)
      return { sessionId: session.id, renewed, tokenId: session.tokenId, ownerId: session.ownerId, scopes: new Set(session.scopes.split(' ')) }
    },

    close: (sessionId: string) => repo.delete(sessionId),

    prune: () => repo.prune(clock.now() - SESSION_IDLE_MS),
  }
}
export type SessionsService = ReturnType<typeof createSessionsService>
