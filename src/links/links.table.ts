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
}
export type LinkRow = Selectable<LinksTable>
export type NewLinkRow = Insertable<LinksTable>
export type LinkRowUpdate = Updateable<LinksTable>
