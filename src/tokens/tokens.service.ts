import { createHash, randomBytes } from 'node:crypto'
import type { Clock } from '../shared/clock.js'
import { newId } from '../shared/ids.js'
import { isUniqueViolation } from '../storage/errors.js'
import type { TokensRepository } from './tokens.repository.js'

export const SCOPES = [
  'links:read',
  'links:write',
  'conversations:read',
  'conversations:write',
  'domains:read',
  'domains:write',
] as const
export type Scope = (typeof SCOPES)[number]

/** Who is calling: resolved from the bearer token on every `/v1` request. */
export interface Principal {
  readonly tokenId: string
  readonly ownerId: string
  readonly scopes: ReadonlySet<string>
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

    hasAny: async () => (await repo.countActive()) > 0,

    async list(): Promise<TokenInfo[]> {
      return (await repo.list()).map((row) => ({
        id: row.id,
        name: row.name,
        ownerId: row.owner_id,
        scopes: row.scopes.split(' '),
        prefix: row.prefix,
        createdAt: new Date(row.created_at).toISOString(),
        revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
      }))
    },

    /** Revokes by token id (`tok_…`) or by the token itself; false when nothing active matched. */
    async revoke(idOrToken: string): Promise<boolean> {
      const target = idOrToken.startsWith('tok_') ? { id: idOrToken } : { hash: hashToken(idOrToken) }
      return (await repo.revoke(target, clock.now())) > 0
    },
  }
}
export type TokensService = ReturnType<typeof createTokensService>
