import type { Db } from '../storage/database.js'
import type { LinkRow, LinkRowUpdate, NewLinkRow } from './links.table.js'

export interface LinkFilters {
  domain?: string
  path?: string
  destination?: string
  title?: string
}

export function createLinksRepository(db: Db) {
  return {
    async insert(row: NewLinkRow): Promise<void> {
      await db.insertInto('links').values(row).execute()
    },
    findForOwner: (ownerId: string, id: string): Promise<LinkRow | undefined> =>
      db.selectFrom('links').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst(),

    /** The redirect's point query: served by the unique (domain, path) index. */
    findTarget: (domain: string, path: string): Promise<{ id: string; destination: string } | undefined> =>
      db.selectFrom('links').select(['id', 'destination']).where('domain', '=', domain).where('path', '=', path).executeTakeFirst(),

    /** Whether any link uses the domain: asked by domains, inside the transaction that deletes it. */
    anyOnDomain: async (domain: string): Promise<boolean> =>
      (await db.selectFrom('links').select('id').where('domain', '=', domain).limit(1).executeTakeFirst()) !== undefined,

    /** One page, newest first; asks for one row more than the page to know whether more follow. */
    list(ownerId: string, filters: LinkFilters, offset: number, limit: number): Promise<LinkRow[]> {
      let query = db.selectFrom('links').selectAll().where('owner_id', '=', ownerId)
      for (const [column, value] of Object.entries(filters) as [keyof LinkFilters, string | undefined][]) {
        if (value !== undefined) query = query.where(column, '=', value)
      }
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute()
    },

    async update(ownerId: string, id: string, changes: LinkRowUpdate): Promise<void> {
      await db.updateTable('links').set(changes).where('id', '=', id).where('owner_id', '=', ownerId).execute()
    },

    /** Deletes and returns the link, or undefined when the owner has no such link. */
    deleteForOwner: (ownerId: string, id: string): Promise<LinkRow | undefined> =>
      db.deleteFrom('links').where('id', '=', id).where('owner_id', '=', ownerId).returningAll().executeTakeFirst(),
  }
}
export type LinksRepository = ReturnType<typeof createLinksRepository>
