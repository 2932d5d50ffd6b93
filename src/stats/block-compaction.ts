import { sql } from 'kysely'
import { chunks } from '../shared/chunks.js'
import { DAY_MS, floorTo, HOUR_MS } from '../shared/time.js'
import type { Db } from '../storage/database.js'
import { inTransaction, type Transaction } from '../storage/transaction.js'
import { blockRowVisits, mergeVisits, packVisits, sliceVisits } from './block-pack.js'

/*
 * The click blocks' compaction (ADR 0014). The roll-up writes a block per link and hour every 30 s
 * (level 0); once an hour has been over for COMPACT_AFTER_MS, its blocks become one packed row per link
 * (level 1, block-pack.ts), and once its day is DAY_ROWS_AFTER_MS old, the day's rows become one
 * (level 2). Each replacement (delete the rows read, insert the packed one) is one transaction, undone
 * whole when a row read is gone by then (another instance compacted it, a purge took it): a crash or a
 * race loses and duplicates nothing. The rows still to merge are found by time through a partial index
 * of levels 0 and 1 (migration 0029).
 */

/** An hour is compacted once over for this long: the roll-up's blocks of it have come by then (a later one is merged in the next hour). */
export const COMPACT_AFTER_MS = 5 * 60_000
/** A day's hour rows become one row once the day is this old (the statistics' zone split reads hours of the last days most). */
export const DAY_ROWS_AFTER_MS = 7 * DAY_MS
/** Visits per packed row at most: a link with more in one hour or day gets several rows (an export page holds a row whole). */
export const MAX_ROW_VISITS = 1_000_000
/** Rows read per step. */
const SCAN = 2000
/** Link-hours (or link-days) replaced per transaction. */
const GROUPS_PER_TRANSACTION = 100

interface Stage {
  /** The level of the rows it merges; its rows are one level up. */
  readonly level: 0 | 1
  /** Rows that begin before this are due. */
  readonly before: number
  /** An hour or a day: a row's group begins at its start floored to this. */
  readonly span: number
}

const stagesAt = (now: number): Stage[] => [
  { level: 0, before: floorTo(now - COMPACT_AFTER_MS, HOUR_MS), span: HOUR_MS },
  { level: 1, before: floorTo(now - DAY_ROWS_AFTER_MS, DAY_MS), span: DAY_MS },
]

/** A row read for a replacement was gone by then: the transaction is undone, the group left for later. */
class Moved extends Error {}
/** PostgreSQL's deadlock and serialization failures: two instances' replacements met. */
const CONFLICTS = new Set(['40P01', '40001'])

/**
 * Compacts what is due at `now`, for about `budgetMs` (then returns false: call again, e.g. after the
 * next roll-up); true once nothing is left. Runs in the click writer thread, in short transactions.
 */
export async function compactBlocks(db: Db, now: number, budgetMs = 1000): Promise<boolean> {
  const deadline = performance.now() + budgetMs
  for (const stage of stagesAt(now)) {
    for (let after: Cursor | undefined; ;) {
      const step = await walk(db, stage, after)
      if (step === 'moved') return false
      if (step === 'done') break
      after = step
      if (performance.now() > deadline) return false
    }
  }
  return true
}

/** Where a walk's page ended: rows are read in (start_at, id) order. */
interface Cursor {
  readonly startAt: number
  readonly id: number
}

/** One page of due rows, their groups replaced. A group left out (a deleted link's) is passed by the cursor. */
async function walk(db: Db, stage: Stage, after: Cursor | undefined): Promise<Cursor | 'done' | 'moved'> {
  let query = db
    .selectFrom('click_blocks')
    .select(['id', 'link_id', 'start_at'])
    .where('level', '=', stage.level)
    // The partial index's condition, spelled out as it is there: SQLite then knows the index holds every row asked for.
    .where(sql<boolean>`level < 2`)
    .where('start_at', '<', stage.before)
  if (after !== undefined) query = query.where(sql<boolean>`(start_at, id) > (${after.startAt}, ${after.id})`)
  const page = await query.orderBy('start_at').orderBy('id').limit(SCAN).execute()
  const groups = new Map<string, { linkId: string; start: number }>()
  for (const r of page) {
    const start = floorTo(Number(r.start_at), stage.span)
    groups.set(`${r.link_id} ${start}`, { linkId: r.link_id, start })
  }
  const list = [...groups.values()]
  for (let i = 0; i < list.length; i += GROUPS_PER_TRANSACTION) {
    try {
      await inTransaction(db, async (trx) => {
        for (const g of await live(trx, list.slice(i, i + GROUPS_PER_TRANSACTION))) {
          await replace(trx, g.linkId, g.start, g.start + stage.span, (stage.level + 1) as 1 | 2)
        }
      })
    } catch (error) {
      // Another instance replacing the same rows: left for a later run, as when a row read has gone.
      if (error instanceof Moved || CONFLICTS.has(String((error as { code?: unknown }).code))) return 'moved'
      throw error
    }
  }
  const last = page.at(-1)
  return page.length < SCAN || last === undefined ? 'done' : { startAt: Number(last.start_at), id: Number(last.id) }
}

/** The groups whose link is not deleted (a deleted link's rows are the purge's). */
async function live<G extends { linkId: string }>(trx: Transaction, groups: readonly G[]): Promise<G[]> {
  const ids = new Set<string>()
  for (const part of chunks([...new Set(groups.map((g) => g.linkId))], 1000)) {
    for (const r of await trx.selectFrom('links').select('id').where('id', 'in', part).where('deleted_at', 'is', null).execute()) ids.add(r.id)
  }
  return groups.filter((g) => ids.has(g.linkId))
}

/**
 * Replaces the link's rows that begin in [from, to) by packed rows of `level` (one, or one per
 * MAX_ROW_VISITS visits), unless they are that already.
 */
export async function replace(trx: Transaction, linkId: string, from: number, to: number, level: 1 | 2): Promise<void> {
  const rows = await trx
    .selectFrom('click_blocks')
    .select(['id', 'clicks', 'data', 'packed', 'level'])
    .where('link_id', '=', linkId)
    .where('start_at', '>=', from)
    .where('start_at', '<', to)
    .orderBy('start_at')
    .orderBy('id')
    .execute()
  if (rows.length === 0) return
  const ids = rows.map((r) => r.id)
  const visits = rows.reduce((sum, r) => sum + Number(r.clicks), 0)
  // A late block merged with a day's row keeps the day's level.
  const into = Math.max(level, ...rows.map((r) => Number(r.level)))
  if (rows.every((r) => r.packed !== null) && rows.length <= Math.ceil(visits / MAX_ROW_VISITS)) {
    // Packed already (a day with one hour of visits): only its level changes.
    await trx.updateTable('click_blocks').set({ level: into }).where('id', 'in', ids).execute()
    return
  }
  // The export's order: blocks by (start_at, id), then a stable sort by time.
  const merged = mergeVisits(rows.map((r) => blockRowVisits(r)))
  const deleted = await trx.deleteFrom('click_blocks').where('id', 'in', ids).executeTakeFirst()
  if (Number(deleted.numDeletedRows) !== rows.length) throw new Moved()
  for (let at = 0; at < merged.at.length; at += MAX_ROW_VISITS) {
    const part = sliceVisits(merged, at, Math.min(at + MAX_ROW_VISITS, merged.at.length))
    await trx
      .insertInto('click_blocks')
      .values({
        link_id: linkId,
        start_at: part.at[0] as number,
        end_at: part.at.at(-1) as number,
        clicks: part.at.length,
        data: '',
        packed: packVisits(part),
        level: into,
      })
      .execute()
  }
}
