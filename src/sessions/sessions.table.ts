import type { Insertable, Selectable } from 'kysely'

export interface SessionsTable {
  id: string
  /** SHA-256 of the cookie's value, hex; the value itself is never stored. */
  session_hash: string
  /** The token the session acts as (revoking it ends the session); null for a person's session. */
  token_id: string | null
  /** The person signed in, and the workspace they act in (switchable); null for a token's session. */
  user_id: string | null
  workspace_id: string | null
  created_at: number
  last_used_at: number
}
export type SessionRow = Selectable<SessionsTable>
export type NewSessionRow = Insertable<SessionsTable>
