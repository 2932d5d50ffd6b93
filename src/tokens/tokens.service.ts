import { createHash, randomBytes } from 'node:crypto'
import type { Clock } from '../shared/clock.js'
import { newId } from '../shared/ids.js'
import { isUniqueViolation } from '../storage/errors.js'
import { tokenNotFound, scopesBeyondCaller } from './tokens.errors.js'
import type { TokensRepository } from './tokens.repository.js'
import type { TokenRow } from './tokens.table.js'

export const SCOPES = [
  'links:read',
  'links:write',
  'conversations:read',
  'conversations:write',
  'domains:read',
  'domains:write',
  'tokens:write',
  'webhooks:read',
  'webhooks:write',
] as const
export type Scope = (typeof SCOPES)[number]

/** Who is calling: resolved from the bearer token on every `/v1` request. */
export interface Principal {
  readonly tokenId: string
  readonly ownerId: string
  readonly scopes: ReadonlySet<string>
  /** Set when the caller came with a dashboard session cookie instead of a bearer token. */
  readonly sessionId?: string
}

export interface TokenInfo {
  id: string
  name: string | null
  ownerId: string
  scopes: string[]
  prefix: string
  createdAt: string
  revokedAt: string | null
}

const TOKEN_PREFIX = 'll_'
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

export class InvalidScopesError extends Error {}
export class AmbiguousTokenError extends Error {}

const toInfo = (row: TokenRow): TokenInfo => ({
  id: row.id,
  name: row.name,
  ownerId: row.owner_id,
  scopes: row.scopes.split(' '),
  prefix: row.prefix,
  createdAt: new Date(row.created_at).toISOString(),
  revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
})

export function parseScopes(raw: string | undefined): Scope[] {
  if (raw === undefined || raw.trim() === '') return [...SCOPES]
  const scopes = raw.split(/[\s,]+/).filter(Boolean)
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s))
  if (unknown.length > 0) throw new InvalidScopesError(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`)
  return [...new Set(scopes)] as Scope[]
}

export function createTokensService(deps: { repo: TokensRepository; clock: Clock }) {
  const { repo, clock } = deps

  async function store(token: string, input: { ownerId: string; name?: string | null; scopes?: Scope[] }) {
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
    })
    return { id, token }
  }

  return {
    /** Creates a token with 256 random bits. The plain token is returned once and never stored. */
    create(input: { ownerId: string; name?: string | null; scopes?: Scope[] }) {
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

    async authenticate(token: string): Promise<Principal | undefined> {
      const row = await repo.findActiveByHash(hashToken(token))
      if (!row) return undefined
      return { tokenId: row.id, ownerId: row.owner_id, scopes: new Set(row.scopes.split(' ')) }
    },

    /** The caller's own active tokens (docs/api/tokens.md#the-tokens-api), the one in use marked `current`. */
    async listForOwner(caller: Principal): Promise<(TokenInfo & { current: boolean })[]> {
      return (await repo.listActiveForOwner(caller.ownerId)).map((row) => ({ ...toInfo(row), current: row.id === caller.tokenId }))
    },

    /** A token for the caller's owner, with at most the caller's scopes (by default exactly those). */
    async createForOwner(caller: Principal, input: { name?: string | null; scopes?: string[] }): Promise<TokenInfo & { token: string }> {
      const scopes = input.scopes === undefined ? [...caller.scopes] : [...new Set(input.scopes)]
      const beyond = scopes.filter((s) => !caller.scopes.has(s))
      if (beyond.length > 0) throw scopesBeyondCaller(beyond)
      const ordered = SCOPES.filter((s) => scopes.includes(s))
      const { id, token } = await store(TOKEN_PREFIX + randomBytes(32).toString('base64url'), {
        ownerId: caller.ownerId,
        name: input.name ?? null,
        scopes: ordered,
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
