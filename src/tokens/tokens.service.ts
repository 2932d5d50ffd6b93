import { createHash, randomBytes } from 'node:crypto'
import { scopesOfRole, SCOPES, type Role, type Scope } from '../accounts/roles.js'
import { createdByColumns, createdByOf, type Actor } from '../shared/actor.js'
import type { Clock } from '../shared/clock.js'
import { newId } from '../shared/ids.js'
import { isUniqueViolation } from '../storage/errors.js'
import { invalidExpiry, tokenNotFound, scopesBeyondCaller } from './tokens.errors.js'
import type { TokensRepository } from './tokens.repository.js'
import type { TokenRow } from './tokens.table.js'

export { SCOPES, type Scope }

/** Who is calling: resolved from the bearer token or the session cookie on every `/v1` request. */
export interface Principal {
  /** The workspace acted in (called the owner where a resource records it). */
  readonly ownerId: string
  readonly scopes: ReadonlySet<string>
  /** The person or token to name in the audit log and in `createdBy`; none for the command line (an operator at the shell). */
  readonly actor?: Actor
  /** The role acted with: a person's, or the role of the person who made the token; `owner` for an operator's token. */
  readonly role: Role
  /** The token the request acts as (directly or behind a token session). */
  readonly tokenId?: string
  /** Set when the caller came with a dashboard session cookie instead of a bearer token. */
  readonly sessionId?: string
  /** The person behind the request: a person's session, or a token a person made. */
  readonly userId?: string
}

export interface TokenInfo {
  id: string
  name: string | null
  ownerId: string
  scopes: string[]
  prefix: string
  createdAt: string
  createdBy: Actor | null
  lastUsedAt: string | null
  expiresAt: string | null
  revokedAt: string | null
}

const TOKEN_PREFIX = 'll_'
/** `last_used_at` moves at most this often: one write per request would make every read a write. */
const TOUCH_EVERY_MS = 60_000

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

export class InvalidScopesError extends Error {}
export class AmbiguousTokenError extends Error {}

const isoOrNull = (at: number | null) => (at === null ? null : new Date(Number(at)).toISOString())

const toInfo = (row: TokenRow): TokenInfo => ({
  id: row.id,
  name: row.name,
  ownerId: row.owner_id,
  scopes: row.scopes.split(' '),
  prefix: row.prefix,
  createdAt: new Date(Number(row.created_at)).toISOString(),
  createdBy: createdByOf(row),
  lastUsedAt: isoOrNull(row.last_used_at),
  expiresAt: isoOrNull(row.expires_at),
  revokedAt: isoOrNull(row.revoked_at),
})

/** How a token is named where it acted: its name, else its non-secret prefix. */
export const tokenLabel = (row: Pick<TokenRow, 'name' | 'prefix'>) => row.name ?? `${row.prefix}…`

export function parseScopes(raw: string | undefined): Scope[] {
  if (raw === undefined || raw.trim() === '') return [...SCOPES]
  const scopes = raw.split(/[\s,]+/).filter(Boolean)
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s))
  if (unknown.length > 0) throw new InvalidScopesError(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`)
  return [...new Set(scopes)] as Scope[]
}

/** The longest a token may be made for: ten years. */
const MAX_LIFETIME_MS = 10 * 366 * 24 * 60 * 60 * 1000

/** An expiry asked for: a date-time in the future, within MAX_LIFETIME_MS. */
function expiryOf(raw: string, now: number): number {
  const at = Date.parse(raw)
  if (!Number.isFinite(at)) throw invalidExpiry('an ISO 8601 date-time')
  if (at <= now) throw invalidExpiry('in the future')
  if (at - now > MAX_LIFETIME_MS) throw invalidExpiry('within ten years')
  return at
}

interface NewToken {
  ownerId: string
  name?: string | null
  scopes?: readonly Scope[]
  /** The person whose role caps it. */
  userId?: string
  createdBy?: Actor
  /** Epoch ms; absent: never expires. */
  expiresAt?: number
}

export function createTokensService(deps: { repo: TokensRepository; clock: Clock }) {
  const { repo, clock } = deps

  async function store(token: string, input: NewToken) {
    const id = newId('tok')
    await repo.insert({
      id,
      owner_id: input.ownerId,
      name: input.name ?? null,
      scopes: (input.scopes ?? [...SCOPES]).join(' '),
      token_hash: hashToken(token),
      prefix: token.slice(0, TOKEN_PREFIX.length + 6),
      created_at: clock.now(),
      revoked_at: null,
      user_id: input.userId ?? null,
      expires_at: input.expiresAt ?? null,
      ...createdByColumns(input.createdBy),
    })
    return { id, token }
  }

  /** The caller a token stands for, if it is active (and its maker is still in its workspace). */
  async function principalFor(row: Awaited<ReturnType<TokensRepository['findActiveWithRole']>>): Promise<Principal | undefined> {
    if (!row) return undefined
    // A token made by a person who has left (or whose membership is gone) acts for no one.
    if (row.user_id !== null && row.role === null) return undefined
    const now = clock.now()
    if (row.expires_at !== null && Number(row.expires_at) <= now) return undefined
    if (row.last_used_at === null || now - Number(row.last_used_at) >= TOUCH_EVERY_MS) await repo.touch(row.id, now)
    const own = row.scopes.split(' ')
    const cap = row.role === null ? undefined : scopesOfRole(row.role)
    return {
      tokenId: row.id,
      ownerId: row.owner_id,
      scopes: new Set(cap === undefined ? own : own.filter((s) => cap.has(s as Scope))),
      actor: { type: 'token', id: row.id, label: tokenLabel(row) },
      role: row.role ?? 'owner',
      ...(row.user_id === null ? {} : { userId: row.user_id }),
    }
  }

  return {
    /** Creates a token with 256 random bits. The plain token is returned once and never stored. */
    create(input: NewToken) {
      return store(TOKEN_PREFIX + randomBytes(32).toString('base64url'), input)
    },

    /** Ensures the operator's bootstrap token exists (idempotent across restarts and instances starting together). */
    async ensure(token: string, ownerId: string): Promise<void> {
      if (await repo.findActiveByHash(hashToken(token))) return
      try {
        await store(token, { ownerId, name: 'bootstrap' })
      } catch (error) {
        if (!isUniqueViolation(error)) throw error
      }
    },

    authenticate: async (token: string): Promise<Principal | undefined> => principalFor(await repo.findActiveWithRole({ hash: hashToken(token) })),

    /** The caller behind a token session: the token by id, under the same rules as a bearer token. */
    authenticateById: async (id: string): Promise<Principal | undefined> => principalFor(await repo.findActiveWithRole({ id })),

    /** The caller's own active tokens (docs/api/tokens.md#the-tokens-api), the one in use marked `current`. */
    async listForOwner(caller: Principal): Promise<(TokenInfo & { current: boolean })[]> {
      return (await repo.listActiveForOwner(caller.ownerId, clock.now())).map((row) => ({ ...toInfo(row), current: row.id === caller.tokenId }))
    },

    /**
     * A token for the caller's workspace, with at most the caller's scopes (by default exactly those).
     * A person's token stays capped by their role, whatever it becomes, and ends when they leave.
     */
    async createForOwner(
      caller: Principal,
      input: { name?: string | null; scopes?: string[]; expiresAt?: string | null },
    ): Promise<TokenInfo & { token: string }> {
      const expiresAt = input.expiresAt == null ? undefined : expiryOf(input.expiresAt, clock.now())
      const scopes = input.scopes === undefined ? [...caller.scopes] : [...new Set(input.scopes)]
      const beyond = scopes.filter((s) => !caller.scopes.has(s))
      if (beyond.length > 0) throw scopesBeyondCaller(beyond)
      const { id, token } = await store(TOKEN_PREFIX + randomBytes(32).toString('base64url'), {
        ownerId: caller.ownerId,
        name: input.name ?? null,
        scopes: SCOPES.filter((s) => scopes.includes(s)),
        userId: caller.userId,
        createdBy: caller.actor,
        ...(expiresAt !== undefined && { expiresAt }),
      })
      const row = (await repo.findActive({ id }))[0]
      if (!row) throw tokenNotFound()
      return { ...toInfo(row), token }
    },

    /** Revokes one of the caller's owner's tokens; another owner's or an unknown one is 404. */
    async revokeForOwner(caller: Principal, id: string): Promise<TokenInfo> {
      const row = (await repo.findActive({ id })).find((r) => r.owner_id === caller.ownerId)
      if (!row) throw tokenNotFound()
      const at = clock.now()
      if ((await repo.revoke(row.id, at)) === 0) throw tokenNotFound()
      return toInfo({ ...row, revoked_at: at })
    },

    /** Revokes every token a person made in a workspace (they left it); returns how many. */
    revokeMadeBy: (userId: string, workspaceId: string) => repo.revokeMadeBy(userId, workspaceId, clock.now()),

    hasAny: async () => (await repo.countActive()) > 0,

    list: async (): Promise<TokenInfo[]> => (await repo.list()).map(toInfo),

    /**
     * Revokes the active token that `reference` names: its id (`tok_…`), the token itself, or the
     * prefix that `tokens list` shows (`ll_abc123`, with or without its `…`) when no other active token
     * has it. Returns the token revoked; undefined when no active token matched.
     */
    async revoke(reference: string): Promise<TokenInfo | undefined> {
      const ref = reference.replace(/…$/, '')
      let rows = await repo.findActive(ref.startsWith('tok_') ? { id: ref } : { hash: hashToken(ref) })
      if (rows.length === 0 && !ref.startsWith('tok_')) rows = await repo.findActive({ prefix: ref })
      if (rows.length > 1) throw new AmbiguousTokenError(`${rows.length} active tokens start with ${ref}: give the token id (tok_…) instead`)
      const row = rows[0]
      if (row === undefined) return undefined
      const at = clock.now()
      // Revoked meanwhile by someone else: nothing was revoked here.
      if ((await repo.revoke(row.id, at)) === 0) return undefined
      return toInfo({ ...row, revoked_at: at })
    },
  }
}

export type TokensService = ReturnType<typeof createTokensService>
