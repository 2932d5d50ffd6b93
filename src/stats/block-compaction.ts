import { sql } from 'kysely'
import { chunks } from '../shared/chunks.js'
import { DAY_MS, HOUR_MS } from '../shared/time.js'
import type { Db } from '../storage/database.js'
import type { DialectAdapter } from '../storage/dialect.js'
import { inTransaction, type Transaction } from '../storage/transaction.js'
import { blockRowVisits, mergeVisits, packVisits, sliceVisits } from './block-pack.js'
import { ROLLUP_LOCK } from './rollup.repository.js'

/*
 * The click blocks' compaction (ADR 0014). The roll-up writes a block per link and hour every 30 s;
 * once an hour has been over for COMPACT_AFTER_MS, its blocks become one packed row per link (block-pack.ts),
 * and once its day is DAY_ROWS_AFTER_MS old, the day's rows become one. Each replacement (delete the rows
 * read, insert the packed one) is one transaction, and is undone whole when a row read is gone by then
 * (another instance compacted it, a purge took it): a crash or a race loses and duplicates nothing.
 *
 * Work is found in the order rows were numbered, from a watermark per stage
 * (`click_block_compaction`): rows are written about in time order, so the walk reads little more than
 * it compacts, and stops at the first row still too young.
 */

/** An hour is compacted once over for this long: the roll-up's blocks of it have come by then (a later one is merged in the next hour). */
export const COMPACT_AFTER_MS = 5 * 60_000
/** A day's hour rows become one row once the day is this old (the statistics' zone split reads hours of the last days most). */
export const DAY_ROWS_AFTER_MS = 7 * DAY_MS
/** Visits per packed row at most: a link with more in one hour or day gets several rows (an export page holds a row whole). */
export const MAX_ROW_VISITS = 1_000_000
/** Rows read per step of the walk. */
const SCAN = 2000
/** Link-hours (or link-days) replaced per transaction. */
const GROUPS_PER_TRANSACTION = 100

interface Stage {
  readonly column: 'raw_through' | 'hours_through'
  /** The group a row belongs to (its hour or day), undefined when the walk has nothing to do with it. */
  group(startAt: number, raw: boolean): number | undefined
  /** A row the walk must not pass yet (its hour or day is not due). */
  young(startAt: number, raw: boolean): boolean
  readonly span: number
}

const stages = (now: number): Stage[] => {
  const hoursBefore = Math.floor((now - COMPACT_AFTER_MS) / HOUR_MS) * HOUR_MS
  const daysBefore = Math.floor((now - DAY_ROWS_AFTER_MS) / DAY_MS) * DAY_MS
  return [
    {
      column: 'raw_through',
      span: HOUR_MS,
      group: (start, raw) => (raw && start < hoursBefore ? Math.floor(start / HOUR_MS) * HOUR_MS : undefined),
      young: (start, raw) => raw && start >= hoursBefore,
    },
    {
      column: 'hours_through',
      span: DAY_MS,
      group: (start) => (start < daysBefore ? Math.floor(start / DAY_MS) * DAY_MS : undefined),
      young: (start) => start >= daysBefore,
    },
  ]
}

/** A row read for a replacement was gone by then: the transaction is undone, the group left for later. */
class Moved extends Error {}

/**
 * Compacts what is due at `now`, for about `budgetMs` (then returns false: call again, e.g. after the
 * next roll-up); true once nothing is left. Runs in the click writer thread, in short transactions.
 */
export async function compactBlocks(db: Db, dialect: DialectAdapter, now: number, budgetMs = 1000): Promise<boolean> {
  const deadline = performance.now() + budgetMs
  for (const stage of stages(now)) {
    for (;;) {
      const step = await walk(db, dialect, stage)
      if (step === 'done') break
      if (step === 'moved' || performance.now() > deadline) return false
    }
  }
  return true
}

/** One page of the walk: its groups replaced, then the watermark moved past them. */
async function walk(db: Db, dialect: DialectAdapter, stage: Stage): Promise<'done' | 'more' | 'moved'> {
  // Under the roll-up lock, so that no roll-up is writing blocks: no row numbered below one seen can
  // commit later (PostgreSQL numbers rows at insert, not at commit) and be passed over.
  const { through, page } = await inTransaction(db, async (trx) => {
    await dialect.lockForTransaction(trx, ROLLUP_LOCK)
    const mark = await trx.selectFrom('click_block_compaction').select(stage.column).where('id', '=', 1).executeTakeFirstOrThrow()
    const through = Number(mark[stage.column])
    const page = await trx
      .selectFrom('click_blocks')
      .select(['id', 'link_id', 'start_at', sql<number | boolean>`case when packed is null then 1 else 0 end`.as('raw')])
      .where('id', '>', through)
      .orderBy('id')
      .limit(SCAN)
      .execute()
    return { through, page }
  })
  /** Each group to replace, with the lowest row number of the page in it. */
  const groups = new Map<string, { linkId: string; start: number; first: number }>()
  let passed = through
  let stopped = false
  for (const r of page) {
    const start = Number(r.start_at)
    const raw = Number(r.raw) === 1
    if (stage.young(start, raw)) {
      stopped = true
      break
    }
    const group = stage.group(start, raw)
    const key = `${r.link_id} ${group}`
    if (group !== undefined && !groups.has(key)) groups.set(key, { linkId: r.link_id, start: group, first: Number(r.id) })
    passed = Number(r.id)
  }
  const list = [...groups.values()]
  for (let i = 0; i < list.length; i += GROUPS_PER_TRANSACTION) {
    const part = list.slice(i, i + GROUPS_PER_TRANSACTION)
    try {
      await inTransaction(db, async (trx) => {
        for (const g of await live(trx, part)) await replace(trx, g.linkId, g.start, g.start + stage.span)
      })
    } catch (error) {
      if (error instanceof Moved) return 'moved'
      throw error
    }
    // Every row before the first group not replaced yet is done with.
    const next = list[i + GROUPS_PER_TRANSACTION]
    await advance(db, stage, next === undefined ? passed : next.first - 1)
  }
  if (list.length === 0) await advance(db, stage, passed)
  return stopped || page.length < SCAN ? 'done' : 'more'
}

async function advance(db: Db, stage: Stage, to: number): Promise<void> {
  await db
    .updateTable('click_block_compaction')
    .set({ [stage.column]: to })
    .where('id', '=', 1)
    .where(stage.column, '<', to)
    .execute()
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
 * Replaces the link's rows that begin in [from, to) by packed rows (one, or one per MAX_ROW_VISITS
 * visits), unless they are that already.
 */
export async function replace(trx: Transaction, linkId: string, from: number, to: number): Promise<void> {
  const rows = await trx
    .selectFrom('click_blocks')
    .select(['id', 'clicks', 'data', 'packed'])
    .where('link_id', '=', linkId)
    .where('start_at', '>=', from)
    .where('start_at', '<', to)
    .orderBy('start_at')
    .orderBy('id')
    .execute()
  const visits = rows.reduce((sum, r) => sum + Number(r.clicks), 0)
  if (rows.every((r) => r.packed !== null) && rows.length <= Math.ceil(visits / MAX_ROW_VISITS)) return
  // The export's order: blocks by (start_at, id), then a stable sort by time.
  const merged = mergeVisits(rows.map((r) => blockRowVisits(r)))
  const deleted = await trx
    .deleteFrom('click_blocks')
    .where(
      'id',
      'in',
      rows.map((r) => r.id),
    )
    .executeTakeFirst()
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
      })
      .execute()
  }
}
