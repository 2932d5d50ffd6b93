import type { Selectable } from 'kysely'

export type DomainStatus = 'pending' | 'verified'

export interface DomainsTable {
  name: string
  owner_id: string
  created_at: number
  /** `pending` until the TXT record `_linkline.<hostname>` = `verification_token` is found. */
  status: DomainStatus
  /** Null for domains claimed before verification existed (migration 0008). */
  verification_token: string | null
  verified_at: number | null
  last_checked_at: number | null
}
export type DomainRow = Selectable<DomainsTable>
