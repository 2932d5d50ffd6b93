import type { Selectable } from 'kysely'

export interface DomainsTable {
  name: string
  owner_id: string
  created_at: number
}
export type DomainRow = Selectable<DomainsTable>
