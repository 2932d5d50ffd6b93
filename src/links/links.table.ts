import type { Insertable, Selectable, Updateable } from 'kysely'

export interface LinksTable {
  id: string
  owner_id: string
  domain: string
  path: string
  destination: string
  title: string | null
  created_at: number
  updated_at: number
  /** Set when the link was deleted: a tombstone until the background purge removes it (links.purger.ts). */
  deleted_at: number | null
}
export type LinkRow = Selectable<LinksTable>
export type NewLinkRow = Insertable<LinksTable>
export type LinkRowUpdate = Updateable<LinksTable>
