import { newId } from '../shared/ids.js'
import { DAY_MS } from '../shared/time.js'
import type { Db } from '../storage/database.js'
import type { DialectAdapter } from '../storage/dialect.js'
import { inTransaction, type Transaction } from '../storage/transaction.js'
import { dayOf } from './classify.js'
import { KnownVisitors, WrittenFacets, type DailyVisitor, type WrittenHourFacets } from './rollup.caches.js'
import { appendBatch, batchesOf, deleteRows, dropEmptyMarks, hasStaleRows, journalRows, marksOf, setMark } from './click-journal.repository.js'
import {
  compactedThrough,
  compactLinks,
  facetsCompactedBefore,
  hourFacets,
  linkIdsAfter,
  ROLLUP_LOCK,
  rollupStatements,
  writeBlocks,
  writeDayFacets,
  writeRollups,
  writeVisitors,
} from './rollup.repository.js'
import { tally } from './rollup.tally.js'
import { compactWorkspaceDays, ownersAfter } from './workspace-days.js'
import { writeLinkClicks } from './link-clicks.js'
import { addToWorkspaces, linkHoursAdded } from './workspace-rollup.js'
import { VISIT_FIELDS, type VisitColumns } from './visit-columns.js'

/**
 * The click writer's side of the journal: appends batches, and rolls the journal up into the
 * statistics tables. One per writer thread; it remembers which visitors are already counted.
 */
export function createRollup(db: Db, dialect: DialectAdapter, onAppended?: (trx: Transaction, batch: VisitColumns, now: number) => Promise<unknown>) {
  const known = new KnownVisitors()
  /** Every day before this one has its day rows (compactDays), as far as this writer knows. */
  let compactedBefore = -Infinity
  const statements = rollupStatements()
  const written = new WrittenFacets()

  return {
    /** Appends one batch to the journal (one row), with whatever `onAppended` records beside it; resolves to its id. */
    async append(instance: string, batch: VisitColumns, now: number): Promise<string> {
      const id = newId('clj')
      await inTransaction(db, async (trx) => {
        await appendBatch(trx, { id, instance, now, batch })
        await onAppended?.(trx, batch, now)
      })
      return id
    },

    /**
     * Rolls up, in one transaction, the journal rows of `instance` (their batches are in `own`, so they
     * are not parsed again) and those of other writers older than `staleBefore` (a writer that stopped
     * without rolling up). Rows not counted yet (after their writer's mark) go into the daily visitors,
     * the hourly rollups, the breakdowns and their links' own counters (links.clicks, last_clicked_at: the link list). With `blocks`, every row taken also goes into click blocks
     * (the export) and is deleted; without, this writer's rows stay, counted, under its mark, for a
     * later roll-up with blocks: a link's visits of several roll-ups then make one block, not one each
     * (per block, an entry at a random place of the (link_id, start_at) index). Another writer's rows
     * are always finished at once. Visits of links deleted since are left out. Roll-ups of all
     * instances take turns (an advisory lock on PostgreSQL), so that uniques are exact and
     * read-modify-writes of facets rows never race. `staleOnly`: other writers' stale rows only, this
     * writer's left as they are (an idle instance adopting a crashed one's journal). Returns how many
     * visits were counted.
     */
    async rollUp(
      instance: string,
      own: ReadonlyMap<string, VisitColumns>,
      staleBefore: number,
      now: number,
      blocks: boolean,
      staleOnly = false,
    ): Promise<number> {
      const remembered: DailyVisitor[] = []
      let hourRows: WrittenHourFacets = []
      let generation: number | undefined
      const visits = await inTransaction(db, async (trx) => {
        remembered.length = 0
        generation = undefined
        await dialect.lockForTransaction(trx, ROLLUP_LOCK)
        const rows = await journalRows(trx, instance, staleBefore, staleOnly)
        if (rows.length === 0) return 0
        const writers = [...new Set(rows.map((r) => r.instance))]
        const marks = await marksOf(trx, writers)
        // Count the rows after their writer's mark; put in blocks every row taken with `blocks`, and another writer's always.
        const taken = rows
          .map((row) => ({ row, count: row.id > (marks.get(row.instance) ?? ''), block: blocks || row.instance !== instance }))
          .filter((t) => t.count || t.block)
        if (taken.length === 0) return 0

        const batches = await batchesOf(
          trx,
          instance,
          own,
          taken.map((t) => t.row),
        )
        const { links, profiles, visits: list } = tally(taken.map((t) => ({ batch: batches.get(t.row.id) as VisitColumns, count: t.count, block: t.block })))
        // The links' own counters first: the same statement tells which links are deleted since.
        const owners = await writeLinkClicks(trx, statements, links)
        const uncounted = taken.filter((t) => t.count)
        if (uncounted.length > 0) {
          generation = await written.begin(trx)
          await writeVisitors(trx, statements, links, known, remembered)
          await hourFacets(trx, links, profiles.list, written)
          hourRows = await writeRollups(trx, statements, links)
          await addToWorkspaces(trx, linkHoursAdded(links, owners), profiles.list, dayOf(now))
          await writeDayFacets(trx, statements, links, profiles.list, dayOf(now))
        }
        const finished = taken.filter((t) => t.block).map((t) => t.row.id)
        if (finished.length > 0) {
          await writeBlocks(trx, statements, links, list, profiles.list)
          await deleteRows(trx, finished)
        }
        if (!blocks) {
          // This writer's rows left in the journal, all counted now: the mark moves to the last of them.
          const through = rows.findLast((r) => r.instance === instance)?.id
          if (through !== undefined) await setMark(trx, instance, through)
        }
        // A writer whose rows are all gone needs no mark (this one's stays while its rows wait for their blocks).
        const done = blocks ? writers : writers.filter((w) => w !== instance)
        if (done.length > 0) await dropEmptyMarks(trx, done)
        return uncounted.reduce((sum, t) => sum + (batches.get(t.row.id) as VisitColumns).visits.length / VISIT_FIELDS, 0)
      })
      // Only what committed is known to be in the tables.
      known.remember(remembered)
      if (generation !== undefined) written.remember(generation, hourRows)
      known.forgetBefore(dayOf(now) - DAY_MS)
      return visits
    },

    /** Whether the journal holds rows of another writer older than `staleBefore` (one that stopped without rolling them up). */
    async hasStale(instance: string, staleBefore: number): Promise<boolean> {
      return hasStaleRows(db, instance, staleBefore)
    },

    /**
     * Builds the day rows of the days that are over since the last compaction, from their hour rows
     * (a roll-up adds to a day's rows only once the day is over): links in chunks, each chunk in its
     * own short transaction under the roll-up lock, so that appends and other instances' roll-ups go
     * on between them; then the watermark moves to today. A day built twice (a crash before the
     * watermark moved, or two instances at once) comes out the same: hour rows are complete.
     */
    async compactDays(now: number): Promise<void> {
      const today = dayOf(now)
      if (compactedBefore >= today) return
      const from = await facetsCompactedBefore(db)
      if (from < today) {
        for (let after = ''; ;) {
          const ids = await linkIdsAfter(db, after)
          if (ids.length === 0) break
          await inTransaction(db, async (trx) => {
            await dialect.lockForTransaction(trx, ROLLUP_LOCK)
            await compactLinks(trx, statements, ids, from, today)
          })
          after = ids.at(-1) as string
        }
        // Then each workspace's days, from its hour rows: one short transaction per workspace.
        for (let after = ''; ;) {
          const owners = await ownersAfter(db, after)
          if (owners.length === 0) break
          for (const owner of owners) {
            await inTransaction(db, async (trx) => {
              await dialect.lockForTransaction(trx, ROLLUP_LOCK)
              await compactWorkspaceDays(trx, owner, from, today)
            })
          }
          after = owners.at(-1) as string
        }
        await compactedThrough(db, today)
      }
      compactedBefore = today
    },
  }
}
export type Rollup = ReturnType<typeof createRollup>
