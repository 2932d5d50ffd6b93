import { sql } from 'kysely'
import { chunks } from '../shared/chunks.js'
import type { Db } from '../storage/database.js'
import type { DialectAdapter } from '../storage/dialect.js'
import { inOrder, repeatedStatement } from '../storage/repeated-statement.js'
import { inTransaction, type Transaction } from '../storage/transaction.js'
import { createLinkList } from './link-list.js'
import { LINK_COLUMNS, type LinkRow, type LinkRowUpdate, type NewLinkRow } from './links.table.js'

/** What the redirect reads of a link: its target and controls. */
export type TargetRow = Pick<
  LinkRow,
  'id' | 'destination' | 'redirect_type' | 'expires_at' | 'max_clicks' | 'expired_url' | 'password_hash' | 'rules' | 'public_stats' | 'title' | 'preview'
>

// Rows per multi-row INSERT: 22 columns each stays below SQLite's 32,766 and PostgreSQL's 65,535 bound parameters.
const INSERT_CHUNK = 500

/** One link's INSERT, compiled once (repeatedStatement): every create runs it. */
const insertLink = repeatedStatement<LinkRow>(LINK_COLUMNS, 1, (db, rows) => db.insertInto('links').values(rows.map((row) => inOrder(LINK_COLUMNS, row))))

const tagRows = (ownerId: string, linkId: string, tags: readonly string[]) => tags.map((tag) => ({ link_id: linkId, owner_id: ownerId, tag }))

/**
 * Every query but the purge's sees live links only: a deleted link is a tombstone (`deleted_at`) until
 * the background purge has removed its statistics and conversations (links.purger.ts).
 */
export function createLinksRepository(db: Db, adapter: DialectAdapter) {
  const live = () => db.selectFrom('links').where('deleted_at', 'is', null)
  const list = createLinkList(db, adapter)
  return {
    /** Inserts the link and its tags in one transaction. */
    async insert(row: LinkRow, tags: readonly string[] = []): Promise<void> {
      if (tags.length === 0) {
        await insertLink(db, [row])
        return
      }
      await inTransaction(db, async (trx) => {
        await insertLink(trx, [row])
        await trx
          .insertInto('link_tags')
          .values(tagRows(row.owner_id, row.id, tags))
          .execute()
      })
    },

    /** Inserts many links and their tags in one transaction: all or none (a unique violation aborts it). */
    insertMany: (links: readonly { row: NewLinkRow; tags: readonly string[] }[]): Promise<void> =>
      inTransaction(db, async (trx) => {
        for (const part of chunks(links, INSERT_CHUNK))
          await trx
            .insertInto('links')
            .values(part.map((l) => l.row))
            .execute()
        const tags = links.flatMap((l) => tagRows(l.row.owner_id, l.row.id, l.tags))
        for (const part of chunks(tags, 2000)) await trx.insertInto('link_tags').values(part).execute()
      }),

    /**
     * Which of these (domain, path) pairs are taken, as `domain + path`. One `path in (…)` per domain,
     * which the unique (domain, path) index answers: an OR of pairs made SQLite scan every link, once
     * per 500 pairs (over a second per bulk request of 1,000 at 30,000 links).
     */
    async taken(pairs: readonly { domain: string; path: string }[]): Promise<Set<string>> {
      const found = new Set<string>()
      const byDomain = new Map<string, string[]>()
      for (const p of pairs) {
        const paths = byDomain.get(p.domain)
        if (paths) paths.push(p.path)
        else byDomain.set(p.domain, [p.path])
      }
      for (const [domain, paths] of byDomain) {
        for (const part of chunks(paths, INSERT_CHUNK)) {
          const rows = await live().select(['domain', 'path']).where('domain', '=', domain).where('path', 'in', part).execute()
          for (const r of rows) found.add(`${r.domain}${r.path}`)
        }
      }
      return found
    },

    /** The tags of each link, sorted. */
    async tagsOf(linkIds: readonly string[]): Promise<Map<string, string[]>> {
      const tags = new Map<string, string[]>()
      if (linkIds.length === 0) return tags
      for (const part of chunks(linkIds, INSERT_CHUNK)) {
        const rows = await db.selectFrom('link_tags').select(['link_id', 'tag']).where('link_id', 'in', part).orderBy('link_id').orderBy('tag').execute()
        for (const r of rows) {
          const list = tags.get(r.link_id)
          if (list) list.push(r.tag)
          else tags.set(r.link_id, [r.tag])
        }
      }
      return tags
    },
    findForOwner: (ownerId: string, id: string): Promise<LinkRow | undefined> =>
      live().selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst(),

    /** A live link whose statistics are public, whoever owns it. */
    findPublic: (id: string): Promise<Pick<LinkRow, 'id'> | undefined> =>
      live().select('id').where('id', '=', id).where('public_stats', '=', 1).executeTakeFirst(),

    /** The redirect's point query: served by the unique (domain, path) index. */
    findTarget: (domain: string, path: string): Promise<TargetRow | undefined> =>
      live()
        .select(['id', 'destination', 'redirect_type', 'expires_at', 'max_clicks', 'expired_url', 'password_hash', 'rules', 'public_stats', 'title', 'preview'])
        .where('domain', '=', domain)
        .where('path', '=', path)
        .executeTakeFirst(),

    /** Whether any live link uses the domain; `trx`: inside another feature's transaction (the one deleting the domain). */
    async anyOnDomain(domain: string, trx?: Transaction): Promise<boolean> {
      const link = await (trx ?? db).selectFrom('links').select('id').where('domain', '=', domain).where('deleted_at', 'is', null).limit(1).executeTakeFirst()
      return link !== undefined
    },

    /** One page of the list (link-list.ts); asks for one row more than the page to know whether more follow. */
    list: list.page,

    /** The export's pages, newest first, by keyset (link-list.ts). */
    listAfter: list.after,

    /**
     * Inserts many rows in one transaction; a row whose (domain, path) is taken is left out instead of
     * failing the rest. Returns the ids inserted.
     */
    insertManyIfFree: (links: readonly { row: NewLinkRow; tags: readonly string[] }[]): Promise<Set<string>> =>
      inTransaction(db, async (trx) => {
        const inserted = new Set<string>()
        for (const part of chunks(links, INSERT_CHUNK)) {
          const done = await trx
            .insertInto('links')
            .values(part.map((l) => l.row))
            .onConflict((oc) => oc.columns(['domain', 'path']).where('deleted_at', 'is', null).doNothing())
            .returning('id')
            .execute()
          for (const r of done) inserted.add(r.id)
        }
        const tags = links.filter((l) => inserted.has(l.row.id)).flatMap((l) => tagRows(l.row.owner_id, l.row.id, l.tags))
        for (const part of chunks(tags, 2000)) await trx.insertInto('link_tags').values(part).execute()
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
          found.push(
            ...(await live()
              .selectAll()
              .where('domain', '=', domain)
              .where('path', 'in', paths.slice(i, i + INSERT_CHUNK))
              .execute()),
          )
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
        found.push(
          ...(await live()
            .selectAll()
            .where('owner_id', '=', ownerId)
            .where('destination', 'in', destinations.slice(i, i + INSERT_CHUNK))
            .execute()),
        )
      }
      return found
    },

    /** Updates the row and, when `tags` is given, replaces its tags: in one transaction. */
    async update(ownerId: string, id: string, changes: LinkRowUpdate, tags?: readonly string[]): Promise<void> {
      if (tags === undefined) {
        await db.updateTable('links').set(changes).where('id', '=', id).where('owner_id', '=', ownerId).where('deleted_at', 'is', null).execute()
        return
      }
      await inTransaction(db, async (trx) => {
        await trx.updateTable('links').set(changes).where('id', '=', id).where('owner_id', '=', ownerId).where('deleted_at', 'is', null).execute()
        await trx.deleteFrom('link_tags').where('link_id', '=', id).execute()
        if (tags.length > 0)
          await trx
            .insertInto('link_tags')
            .values(tagRows(ownerId, id, tags))
            .execute()
      })
    },

    /** How many links each domain holds, every owner included. */
    linksPerDomain: async (): Promise<{ domain: string; links: number }[]> =>
      (
        await live()
          .select(['domain', (eb) => eb.fn.countAll().as('links')])
          .groupBy('domain')
          .orderBy('domain')
          .execute()
      ).map((r) => ({ domain: r.domain, links: Number(r.links) })),

    /**
     * Moves every link of domain `from` to `to` in one transaction, unless one of its paths is taken on
     * `to` or starts with a segment `reserved` there: then nothing moves and those paths are returned.
     * With `dryRun`, only counts. Returns the links moved (or that would be).
     */
    moveDomain: (from: string, to: string, reserved: string[], dryRun: boolean, now: number) =>
      inTransaction(db, async (trx) => {
        const taken = await trx
          .selectFrom('links as moving')
          .innerJoin('links as there', (join) => join.onRef('there.path', '=', 'moving.path').on('there.domain', '=', to).on('there.deleted_at', 'is', null))
          .select('moving.path')
          .where('moving.domain', '=', from)
          .where('moving.deleted_at', 'is', null)
          .orderBy('moving.path')
          .execute()
        const clashes =
          reserved.length === 0
            ? []
            : await trx
                .selectFrom('links')
                .select('path')
                .where('domain', '=', from)
                .where('deleted_at', 'is', null)
                .where((eb) =>
                  eb.or(
                    reserved.flatMap((segment) => [
                      eb('path', '=', `/${segment}`),
                      eb(sql<string>`substr(path, 1, ${segment.length + 2})`, '=', `/${segment}/`),
                    ]),
                  ),
                )
                .orderBy('path')
                .execute()
        const conflicts = [...new Set([...taken, ...clashes].map((r) => r.path))].sort()
        if (conflicts.length > 0) return { moved: 0, conflicts }
        const moved = dryRun
          ? Number(
              (
                await trx
                  .selectFrom('links')
                  .select((eb) => eb.fn.countAll().as('n'))
                  .where('domain', '=', from)
                  .where('deleted_at', 'is', null)
                  .executeTakeFirstOrThrow()
              ).n,
            )
          : Number(
              (
                await trx
                  .updateTable('links')
                  .set({ domain: to, updated_at: now })
                  .where('domain', '=', from)
                  .where('deleted_at', 'is', null)
                  .executeTakeFirst()
              ).numUpdatedRows,
            )
        return { moved, conflicts }
      }),

    /**
     * Deletes the link as the API sees it (a tombstone; the purge does the rest) and returns it, or
     * undefined when the owner has no such live link.
     */
    markDeleted: (ownerId: string, id: string, now: number): Promise<LinkRow | undefined> =>
      db
        .updateTable('links')
        .set({ deleted_at: now })
        .where('id', '=', id)
        .where('owner_id', '=', ownerId)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst(),

    /** Removes links that were just created and have nothing attached yet (a create undone). */
    async deleteNew(ids: readonly string[]): Promise<void> {
      await db
        .deleteFrom('links')
        .where('id', 'in', [...ids])
        .execute()
    },

    /** Tombstones waiting for the purge, oldest first. */
    pendingPurge: async (limit: number): Promise<string[]> =>
      (await db.selectFrom('links').select('id').where('deleted_at', 'is not', null).orderBy('deleted_at').limit(limit).execute()).map((r) => r.id),

    /** The purge's last step, once the link's statistics and conversations are gone: what cascades now is at most a few stragglers. */
    async deletePurged(id: string): Promise<void> {
      await db.deleteFrom('links').where('id', '=', id).where('deleted_at', 'is not', null).execute()
    },

    /**
     * Sets a title taken from the page, in one statement that writes only a live link nobody titled
     * (title and title_source both null): an owner's title written meanwhile is never overwritten.
     */
    fillTitle: (id: string, title: string, now: number): Promise<LinkRow | undefined> =>
      db
        .updateTable('links')
        .set({ title, title_source: 'page', updated_at: now })
        .where('id', '=', id)
        .where('title', 'is', null)
        .where('title_source', 'is', null)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst(),

    /** Marks deleted those of `ids` that the owner has, in one statement (tombstones, as markDeleted); returns them. */
    markManyDeleted: (ownerId: string, ids: readonly string[], now: number): Promise<LinkRow[]> =>
      db
        .updateTable('links')
        .set({ deleted_at: now })
        .where('id', 'in', [...ids])
        .where('owner_id', '=', ownerId)
        .where('deleted_at', 'is', null)
        .returningAll()
        .execute(),
  }
}
export type LinksRepository = ReturnType<typeof createLinksRepository>
