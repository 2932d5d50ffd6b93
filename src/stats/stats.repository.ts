import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { sql } from 'kysely'
import type { Db } from '../storage/database.js'
import { bucketStart, isOneOf, type DialectAdapter } from '../storage/dialect.js'
import { inTransaction } from '../storage/transaction.js'
import { stage, writeStagedBatch, type Staging } from './click-batch.js'
import { DAY_MS, dayOf } from './classify.js'
import type { NewClickRow } from './stats.table.js'

// Rows per INSERT statement (10 values each): far below SQLite's and PostgreSQL's bound-parameter limits.
const CHUNK = 1000
/** Rows per retention delete: a few milliseconds each. */
const PRUNE_BATCH = 2000
/** The advisory lock key that serialises click writers across instances (PostgreSQL). */
const CLICK_WRITER_LOCK = 0x6c6e6b636c6b /* "lnkclk" */

const chunks = <T>(rows: readonly T[]): T[][] => Array.from({ length: Math.ceil(rows.length / CHUNK) }, (_, i) => rows.slice(i * CHUNK, (i + 1) * CHUNK))

export interface BucketTotals {
  bucket: number
  total: number
  human: number
  bot: number
  qr: number
  uniques: number
}

/** One recorded visit as exported: never the visitor key (nor an IP, which is never stored). */
export interface ExportedClick {
  clickedAt: number
  referrer: string | null
  browser: string | null
  os: string | null
  device: string | null
  country: string | null
  isQr: boolean
  isBot: boolean
}
const CLICK_COLUMNS = ['clicked_at', 'referrer', 'browser', 'os', 'device', 'country', 'is_qr', 'is_bot'] as const
const toClick = (r: {
  clicked_at: number | string
  referrer: string | null
  browser: string | null
  os: string | null
  device: string | null
  country: string | null
  is_qr: number
  is_bot: number
}): ExportedClick => ({
  // PostgreSQL's bigint arrives as a string.
  clickedAt: Number(r.clicked_at),
  referrer: r.referrer,
  browser: r.browser,
  os: r.os,
  device: r.device,
  country: r.country,
  isQr: r.is_qr === 1,
  isBot: r.is_bot === 1,
})

/**
 * `onStaged` runs in the batch's transaction while `click_batch` holds it: the click writer records
 * link.clicked webhook events there (webhooks/click-events.ts).
 */
export function createStatsRepository(db: Db, dialect: DialectAdapter, onStaged?: (staging: Staging) => Promise<unknown>) {
  return {
    /** The salt of a UTC day: the first instance to ask creates it, every other one reads the same. */
    async daySalt(day: number, candidate: string): Promise<string> {
      await db
        .insertInto('click_salts')
        .values({ day, salt: candidate })
        .onConflict((oc) => oc.column('day').doNothing())
        .execute()
      const row = await db.selectFrom('click_salts').select('salt').where('day', '=', day).executeTakeFirstOrThrow()
      return row.salt
    },

    /**
     * Writes one batch of classified clicks in one transaction: the raw clicks, the daily visitors,
     * and the rollups as increments. The batch is staged in temporary tables and everything else is
     * computed by the database (`INSERT … SELECT … GROUP BY`), so the cost in this process is one
     * staging insert per click, whatever the rollups; see writeStagedBatch. Clicks of links deleted
     * since the visit are left out. Click writers of all instances take turns (the dialect's
     * transaction lock: an advisory lock on PostgreSQL): uniques are then exact and their upserts cannot deadlock.
     */
    async writeBatch(batch: readonly NewClickRow[]): Promise<void> {
      if (batch.length === 0) return
      await inTransaction(db, async (trx) => {
        await dialect.lockForTransaction(trx, CLICK_WRITER_LOCK)
        const staging = await stage(trx)
        for (const rows of chunks(batch)) await staging.insertInto('click_batch').values(rows).execute()
        await onStaged?.(staging)
        await writeStagedBatch(staging)
      })
    },

    /** Every human visit of the link ever recorded (its maxClicks count): one range of the rollups' primary key. */
    async humanClicks(linkId: string): Promise<number> {
      const row = await db
        .selectFrom('link_click_rollups')
        .select((eb) => eb.fn.sum<number | string | null>('human_clicks').as('n'))
        .where('link_id', '=', linkId)
        .executeTakeFirst()
      return Number(row?.n ?? 0)
    },

    /**
     * Counters summed per bucket of `unit` ms (an hour or a day: both divide epoch time evenly in
     * UTC, so the bucket is plain arithmetic on both dialects), hours in [from, to).
     */
    async buckets(linkId: string, from: number, to: number, unit: number): Promise<BucketTotals[]> {
      const rows = await db
        .selectFrom('link_click_rollups')
        .select((eb) => {
          const bucket = bucketStart('hour', unit)
          return [
            bucket.as('bucket'),
            eb.fn.sum<number | string>('total_clicks').as('total'),
            eb.fn.sum<number | string>('human_clicks').as('human'),
            eb.fn.sum<number | string>('bot_clicks').as('bot'),
            eb.fn.sum<number | string>('qr_scans').as('qr'),
            eb.fn.sum<number | string>('unique_visitors').as('uniques'),
          ]
        })
        .where('link_id', '=', linkId)
        .where('hour', '>=', from)
        .where('hour', '<', to)
        .groupBy('bucket')
        .execute()
      // PostgreSQL's sum(bigint) is a numeric, which pg returns as a string.
      return rows.map((r) => ({
        bucket: Number(r.bucket),
        total: Number(r.total),
        human: Number(r.human),
        bot: Number(r.bot),
        qr: Number(r.qr),
        uniques: Number(r.uniques),
      }))
    },

    /**
     * Human clicks per dimension and value, hours in [from, to): whole UTC days from the day rows,
     * the hours before the first and after the last whole day from the hour rows.
     */
    async breakdowns(linkId: string, from: number, to: number): Promise<{ dimension: string; value: string; clicks: number }[]> {
      const firstDay = dayOf(from + DAY_MS - 1)
      const endDay = dayOf(to)
      // One plain range scan of the primary key per part (an OR of ranges would scan the whole link).
      const parts: ['hour' | 'day', number, number][] =
        firstDay < endDay
          ? [
              ['day', firstDay, endDay],
              ['hour', from, firstDay],
              ['hour', endDay, to],
            ]
          : [['hour', from, to]]
      const sums = new Map<string, { dimension: string; value: string; clicks: number }>()
      for (const [granularity, start, end] of parts) {
        if (start >= end) continue
        const rows = await db
          .selectFrom('link_click_breakdowns')
          .select((eb) => ['dimension', 'value', eb.fn.sum<number | string>('clicks').as('clicks')])
          .where('link_id', '=', linkId)
          .where('granularity', '=', granularity)
          .where('period_start', '>=', start)
          .where('period_start', '<', end)
          .groupBy(['dimension', 'value'])
          .execute()
        for (const r of rows) {
          const key = `${r.dimension} ${r.value}`
          const sum = sums.get(key)
          if (sum) sum.clicks += Number(r.clicks)
          else sums.set(key, { dimension: r.dimension, value: r.value, clicks: Number(r.clicks) })
        }
      }
      return [...sums.values()]
    },

    /** The time of the link's latest human click, read from the latest rollup hour that has one. */
    async lastHumanClickAt(linkId: string): Promise<number | null> {
      const row = await db
        .selectFrom('link_click_rollups')
        .select('last_human_click_at')
        .where('link_id', '=', linkId)
        .where('human_clicks', '>', 0)
        .orderBy('hour', 'desc')
        .limit(1)
        .executeTakeFirst()
      return row?.last_human_click_at ?? null
    },

    /**
     * The link's recorded visits in [from, to), oldest first, one page after `after` (a clicked_at,
     * exclusive): a range scan of the (link_id, clicked_at) index. Clicks have no id of their own, so a
     * page ends on a whole millisecond: when the page is full, the visits of its last millisecond are
     * left to `clicksAt`, which reads all of them (a handful, even under a flood of bots).
     */
    async clicksAfter(
      linkId: string,
      after: number | undefined,
      from: number,
      to: number,
      limit: number,
    ): Promise<{ rows: ExportedClick[]; next: number | undefined }> {
      let query = db.selectFrom('clicks').select(CLICK_COLUMNS).where('link_id', '=', linkId).where('clicked_at', '<', to)
      query = after === undefined ? query.where('clicked_at', '>=', from) : query.where('clicked_at', '>', after)
      const rows = (await query.orderBy('clicked_at').limit(limit).execute()).map(toClick)
      if (rows.length < limit) return { rows, next: undefined }
      const last = (rows.at(-1) as ExportedClick).clickedAt
      const whole = rows.filter((r) => r.clickedAt < last)
      const tail = (await db.selectFrom('clicks').select(CLICK_COLUMNS).where('link_id', '=', linkId).where('clicked_at', '=', last).execute()).map(toClick)
      return { rows: [...whole, ...tail], next: last }
    },

    /**
     * Retention: raw clicks before `clicksBefore`; visitor sets and salts of days before `daysBefore`.
     * Rollups stay. In batches, as the purge: a day of a busy service's clicks is millions of rows.
     */
    async prune(clicksBefore: number, daysBefore: number): Promise<void> {
      for (const [table, where] of [
        ['clicks', sql`clicked_at < ${clicksBefore}`],
        ['link_daily_visitors', sql`day < ${daysBefore}`],
      ] as const) {
        while ((await dialect.deleteBatch(db, table, where, PRUNE_BATCH)) > 0) await yieldToEventLoop()
      }
      await db.deleteFrom('click_salts').where('day', '<', daysBefore).execute()
    },

    /** One batch of a deleted link's statistics (links.purger.ts): its raw clicks first, its counters last. */
    async purgeLink(linkId: string, limit: number): Promise<number> {
      for (const table of ['clicks', 'link_daily_visitors', 'link_click_breakdowns', 'link_click_rollups'] as const) {
        const deleted = await dialect.deleteBatch(db, table, isOneOf('link_id', [linkId]), limit)
        if (deleted > 0) return deleted
      }
      return 0
    },
  }
}
export type StatsRepository = ReturnType<typeof createStatsRepository>
