import type { Insertable, Selectable } from 'kysely'

export interface TokensTable {
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
}
export type TokenRow = Selectable<TokensTable>
export type NewTokenRow = Insertable<TokensTable>
