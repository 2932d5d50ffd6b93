import type { Selectable } from 'kysely'
import type { CreatedByColumns } from '../shared/actor.js'

export type DomainStatus = 'pending' | 'verified'

/** One row per owner and name: several owners may claim a name, one may have it verified (migration 0018). */
export interface DomainsTable extends CreatedByColumns {
  name: string
  owner_id: string
  created_at: number
  /** `pending` until the TXT record `_linkline.<hostname>` = `verification_token` is found. */
  status: DomainStatus
  /** Null for domains claimed before verification existed (migration 0008). */
  verification_token: string | null
  verified_at: number | null
  last_checked_at: number | null
  /** When the claimant last posted or verified the name: a pending claim not renewed for PENDING_TTL_MS ends. */
  renewed_at: number
}
export type DomainRow = Selectable<DomainsTable>
