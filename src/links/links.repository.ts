import { sql } from 'kysely'
import type { Db } from '../storage/database.js'
import { inTransaction } from '../storage/transaction.js'
import type { LinkRow, LinkRowUpdate, NewLinkRow } from './links.table.js'

export interface LinkFilters {
  domain?: string
  path?: string
  destination?: string
  title?: string
}

/**
 * Every query but the purge's sees live links only: a deleted link is a tombstone (`deleted_at`) until
 * the background purge has removed its statistics and conversations (links.purger.ts).
 */
export function createLinksRepository(db: Db) {
  const live = () => db.selectFrom('links').where('deleted_at', 'is', null)
  return {
    async insert(row: NewLinkRow): Promise<void> {
      await db.insertInto('links').values(row).execute()
    },
    findForOwner: (ownerId: string, id: string): Promise<LinkRow | undefined> =>
      live().selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst(),

    /** The redirect's point query: served by the unique (domain, path) index. */
    findTarget: (domain: string, path: string): Promise<{ id: string; destination: string } | undefined> =>
      live().select(['id', 'destination']).where('domain', '=', domain).where('path', '=', path).executeTakeFirst(),

    /** Whether any live link uses the domain; `trx`: inside another feature's transaction (the one deleting the domain). */
    anyOnDomain: async (domain: string, trx: Db = db): Promise<boolean> =>
      (await trx.selectFrom('links').select('id').where('domain', '=', domain).where('deleted_at', 'is', null).limit(1).executeTakeFirst()) !== undefined,

    /** One page, newest first; asks for one row more than the page to know whether more follow. */
    list(ownerId: string, filters: LinkFilters, offset: number, limit: number): Promise<LinkRow[]> {
      let query = live().selectAll().where('owner_id', '=', ownerId)
      for (const [column, value] of Object.entries(filters) as [keyof LinkFilters, string | undefined][]) {
        if (value !== undefined) query = query.where(column, '=', value)
      }
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute()
    },

    async update(ownerId: string, id: string, changes: LinkRowUpdate): Promise<void> {
      await db.updateTable('links').set(changes).where('id', '=', id).where('owner_id', '=', ownerId).where('deleted_at', 'is', null).execute()
    },

    /** How many links each domain holds, every owner included. */
    linksPerDomain: async (): Promise<{ domain: string; links: number }[]> =>
      (await live().select(['domain', (eb) => eb.fn.countAll().as('links')]).groupBy('domain').orderBy('domain').execute())
        .map((r) => ({ domain: r.domain, links: Number(r.links) })),

    /**
     * Moves every link of domain `from` to `to` in one transaction, unless one of its paths is taken on
     * `to` or starts with a segment `reserved` there: then nothing moves and those paths are returned.
     * With `dryRun`, only counts. Returns the links moved (or that would be).
     */
    moveDomain: (from: string, to: string, reserved: string[], dryRun: boolean, now: number) =>
      inTransaction(db, async (trx) => {
        const taken = await trx.selectFrom('links as moving')
          .innerJoin('links as there', (join) => join.onRef('there.path', '=', 'moving.path').on('there.domain', '=', to).on('there.deleted_at', 'is', null))
          .select('moving.path').where('moving.domain', '=', from).where('moving.deleted_at', 'is', null).orderBy('moving.path').execute()
        const clashes = reserved.length === 0 ? [] : await trx.selectFrom('links').select('path').where('domain', '=', from).where('deleted_at', 'is', null)
          .where((eb) => eb.or(reserved.flatMap((segment) => [
            eb('path', '=', `/${segment}`),
            eb(sql<string>`substr(path, 1, ${segment.length + 2})`, '=', `/${segment}/`),
          ]))).orderBy('path').execute()
        const conflicts = [...new Set([...taken, ...clashes].map((r) => r.path))].sort()
        if (conflicts.length > 0) return { moved: 0, conflicts }
        const moved = dryRun
          ? Number((await trx.selectFrom('links').select((eb) => eb.fn.countAll().as('n')).where('domain', '=', from).where('deleted_at', 'is', null).executeTakeFirstOrThrow()).n)
          : Number((await trx.updateTable('links').set({ domain: to, updated_at: now }).where('domain', '=', from).where('deleted_at', 'is', null).executeTakeFirst()).numUpdatedRows)
        return { moved, conflicts }
      }),

    /**
     * Deletes the link as the API sees it (a tombstone; the purge does the rest) and returns it, or
     * undefined when the owner has no such live link.
     */
    markDeleted: (ownerId: string, id: string, now: number): Promise<LinkRow | undefined> =>
      db.updateTable('links').set({ deleted_at: now }).where('id', '=', id).where('owner_id', '=', ownerId).where('deleted_at', 'is', null)
        .returningAll().executeTakeFirst(),

    /** Removes a link that was just created and has nothing attached yet (a create undone). */
    async deleteNew(id: string): Promise<void> {
      await db.deleteFrom('links').where('id', '=', id).execute()
    },

    /** Tombstones waiting for the purge, oldest first. */
    pendingPurge: async (limit: number): Promise<string[]> =>
      (await db.selectFrom('links').select('id').where('deleted_at', 'is not', null).orderBy('deleted_at').limit(limit).execute()).map((r) => r.id),

    /** The purge's last step, once the link's statistics and conversations are gone: what cascades now is at most a few stragglers. */
    async deletePurged(id: string): Promise<void> {
      await db.deleteFrom('links').where('id', '=', id).where('deleted_at', 'is not', null).execute()
    },
  }
}
export type LinksRepository = ReturnType<typeof createLinksRepository>
