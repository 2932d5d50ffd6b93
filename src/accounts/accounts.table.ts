import type { Insertable, Selectable } from 'kysely'
import type { CreatedByColumns } from '../shared/actor.js'
import type { Role } from './roles.js'

/** A workspace is what sections on links, tokens and conversations call the owner: same id. */
export interface WorkspacesTable {
  id: string
  name: string
  created_at: number
}

export interface UsersTable {
  id: string
  email: string
  /** The email as compared: trimmed, lower case (unique). */
  email_key: string
  name: string
  /** `scrypt$…` (shared/password-hash.ts); null for a person who signs in only through SSO. */
  password_hash: string | null
  created_at: number
  last_sign_in_at: number | null
}

export interface MembershipsTable {
  user_id: string
  workspace_id: string
  role: Role
  created_at: number
}

export type OneTimeLinkKind = 'invitation' | 'password_reset' | 'setup'

/** Invitations, password resets and the first owner's setup: secrets shown once, stored as SHA-256. */
export interface OneTimeLinksTable extends CreatedByColumns {
  id: string
  kind: OneTimeLinkKind
  secret_hash: string
  workspace_id: string
  email: string | null
  role: Role | null
  user_id: string | null
  created_at: number
  expires_at: number
  used_at: number | null
  revoked_at: number | null
}

export type UserRow = Selectable<UsersTable>
export type NewUserRow = Insertable<UsersTable>
export type OneTimeLinkRow = Selectable<OneTimeLinksTable>
