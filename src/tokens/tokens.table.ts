import type { Insertable, Selectable } from 'kysely'
import type { CreatedByColumns } from '../shared/actor.js'

export interface TokensTable extends CreatedByColumns {
  id: string
  owner_id: string
  name: string | null
  /** Space-separated scopes. */
  scopes: string
  /** SHA-256 of the token, hex; the token itself is never stored. */
  token_hash: string
  /** A non-secret prefix of the token, for `tokens list`. */
  prefix: string
  created_at: number
  revoked_at: number | null
  /** The person whose role caps this token's scopes (it ends when they leave); null for an operator's token. */
  user_id: string | null
  /** Moves at most once a minute (tokens.service.ts). */
  last_used_at: number | null
  /** After this (epoch ms) the token authenticates no one; null: never. */
  expires_at: number | null
}
export type TokenRow = Selectable<TokensTable>
export type NewTokenRow = Insertable<TokensTable>
