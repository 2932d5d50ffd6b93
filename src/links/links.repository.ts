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

/** Rows per multi-row INSERT of an import: 8 columns each, far below both dialects' bound-parameter limits. */
const INSERT_CHUNK = 500

export function createLinksRepository(db: Db) {
  const filtered = (ownerId: string, filters: LinkFilters) => {
    let query = db.selectFrom('links').selectAll().where('owner_id', '=', ownerId)
    for (const [column, value] of Object.entries(filters) as [keyof LinkFilters, string | undefined][]) {
      if (value !== undefined) query = query.where(column, '=', value)
    }
    return query
  }
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
      return filtered(ownerId, filters).orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute()
    },

    /**
     * The page after `after` in the list's order (newest first), by keyset rather than offset: each
     * page is one range scan of the (owner_id, created_at, id) index, however deep the export is.
     */
    listAfter(ownerId: string, filters: LinkFilters, after: { createdAt: number; id: string } | undefined, limit: number): Promise<LinkRow[]> {
      let query = filtered(ownerId, filters)
      if (after !== undefined) {
        // A row-value comparison, which both engines serve as one index range (an OR of the two
        // conditions made SQLite scan the owner's links from the newest for every page).
        query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)))
      }
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()
    },

    /**
     * Inserts many rows in one transaction; a row whose (domain, path) is taken is left out instead of
     * failing the rest. Returns the ids inserted.
     */
    insertManyIfFree: (rows: readonly NewLinkRow[]): Promise<Set<string>> =>
      inTransaction(db, async (trx) => {
        const inserted = new Set<string>()
        for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
          const chunk = rows.slice(i, i + INSERT_CHUNK)
          const done = await trx.insertInto('links').values(chunk)
            .onConflict((oc) => oc.columns(['domain', 'path']).doNothing()).returning('id').execute()
          for (const r of done) inserted.add(r.id)
        }
        return inserted
      }),

    /**
     * The links at these (domain, path) places, whoever owns them: per domain, `path IN (…)` by chunk,
     * which both engines serve from the unique index (a row-value IN became an OR of 500 bitmap scans
     * on PostgreSQL, seconds per chunk).
     */
    async findAtMany(places: readonly { domain: string; path: string }[]): Promise<LinkRow[]> {
      const byDomain = new Map<string, string[]>()
      for (const p of places) byDomain.set(p.domain, [...(byDomain.get(p.domain) ?? []), p.path])
      const found: LinkRow[] = []
      for (const [domain, paths] of byDomain) {
        for (let i = 0; i < paths.length; i += INSERT_CHUNK) {
          found.push(...await db.selectFrom('links').selectAll().where('domain', '=', domain).where('path', 'in', paths.slice(i, i + INSERT_CHUNK)).execute())
        }
      }
      return found
    },

    /**
     * The owner's links to any of these destinations. Only owner and destination are asked, so that
     * the (owner_id, destination) index serves it: with domain too, SQLite may pick the domain index
     * and scan every link of the domain.
     */
    async findByDestinations(ownerId: string, destinations: readonly string[]): Promise<LinkRow[]> {
      const found: LinkRow[] = []
      for (let i = 0; i < destinations.length; i += INSERT_CHUNK) {
        found.push(...await db.selectFrom('links').selectAll().where('owner_id', '=', ownerId)
          .where('destination', 'in', destinations.slice(i, i + INSERT_CHUNK)).execute())
      }
      return found
    },

    async update(ownerId: string, id: string, changes: LinkRowUpdate): Promise<void> {
      await db.updateTable('links').set(changes).where('id', '=', id).where('owner_id', '=', ownerId).execute()
    },

    /** How many links each domain holds, every owner included. */
    linksPerDomain: async (): Promise<{ domain: string; links: number }[]> =>
      (await db.selectFrom('links').select(['domain', (eb) => eb.fn.countAll().as('links')]).groupBy('domain').orderBy('domain').execute())
        .map((r) => ({ domain: r.domain, links: Number(r.links) })),

    /**
     * Moves every link of domain `from` to `to` in one transaction, unless one of its paths is taken on
     * `to` or starts with a segment `reserved` there: then nothing moves and those paths are returned.
     * With `dryRun`, only counts. Returns the links moved (or that would be).
     */
    moveDomain: (from: string, to: string, reserved: string[], dryRun: boolean, now: number) =>
      inTransaction(db, async (trx) => {
        const taken = await trx.selectFrom('links as moving')
          .innerJoin('links as there', (join) => join.onRef('there.path', '=', 'moving.path').on('there.domain', '=', to))
          .select('moving.path').where('moving.domain', '=', from).orderBy('moving.path').execute()
        const clashes = reserved.length === 0 ? [] : await trx.selectFrom('links').select('path').where('domain', '=', from)
          .where((eb) => eb.or(reserved.flatMap((segment) => [
            eb('path', '=', `/${segment}`),
            eb(sql<string>`substr(path, 1, ${segment.length + 2})`, '=', `/${segment}/`),
          ]))).orderBy('path').execute()
        const conflicts = [...new Set([...taken, ...clashes].map((r) => r.path))].sort()
        if (conflicts.length > 0) return { moved: 0, conflicts }
        const moved = dryRun
          ? Number((await trx.selectFrom('links').select((eb) => eb.fn.countAll().as('n')).where('domain', '=', from).executeTakeFirstOrThrow()).n)
          : Number((await trx.updateTable('links').set({ domain: to, updated_at: now }).where('domain', '=', from).executeTakeFirst()).numUpdatedRows)
        return { moved, conflicts }
      }),

    /** Deletes and returns the link, or undefined when the owner has no such link. */
    deleteForOwner: (ownerId: string, id: string): Promise<LinkRow | undefined> =>
      db.deleteFrom('links').where('id', '=', id).where('owner_id', '=', ownerId).returningAll().executeTakeFirst(),
  }
}
export type LinksRepository = ReturnType<typeof createLinksRepository>
