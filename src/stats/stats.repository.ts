import type { Db } from '../storage/database.js'
import { inTransaction } from '../storage/transaction.js'
import { DAY_MS, dayOf } from './classify.js'
import { rollUp, sortedByKey, visitorId } from './rollups.js'
import type { NewClickRow } from './stats.table.js'

// Rows per INSERT statement: far below SQLite's and PostgreSQL's bound-parameter limits.
const CHUNK = 500

const chunks = <T>(rows: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(rows.length / CHUNK) }, (_, i) => rows.slice(i * CHUNK, (i + 1) * CHUNK))

export interface BucketTotals {
  bucket: number
  total: number
  human: number
  bot: number
  qr: number
  uniques: number
}

export function createStatsRepository(db: Db) {
  return {
    /** The salt of a UTC day: the first instance to ask creates it, every other one reads the same. */
    async daySalt(day: number, candidate: string): Promise<string> {
      await db.insertInto('click_salts').values({ day, salt: candidate }).onConflict((oc) => oc.column('day').doNothing()).execute()
      const row = await db.selectFrom('click_salts').select('salt').where('day', '=', day).executeTakeFirstOrThrow()
      return row.salt
    },

    /**
     * Writes one batch in one transaction: the raw clicks, the daily visitors, and the rollups as
     * increments (`x = x + excluded.x`), which stay right when several instances flush the same link
     * at once. Clicks of links deleted since the visit are left out, so that they cannot fail the batch
     * (a link deleted by another transaction in the instant between the check and the inserts fails
     * the batch on its foreign key; the buffer retries it, and the retry leaves that link out).
     */
    async writeBatch(batch: readonly NewClickRow[]): Promise<void> {
      await inTransaction(db, async (trx) => {
        const ids = [...new Set(batch.map((c) => c.link_id))]
        const existing = new Set((await trx.selectFrom('links').select('id').where('id', 'in', ids).execute()).map((r) => r.id))
        const clicks = batch.filter((c) => existing.has(c.link_id))
        if (clicks.length === 0) return
        for (const rows of chunks(clicks)) await trx.insertInto('clicks').values(rows).execute()

        const visitors = new Map<string, { link_id: string; day: number; visitor_key: string }>()
        for (const c of clicks) {
          if (c.is_bot) continue
          const day = dayOf(c.clicked_at)
          visitors.set(visitorId(c.link_id, day, c.visitor_key), { link_id: c.link_id, day, visitor_key: c.visitor_key })
        }
        const firstVisits = new Set<string>()
        for (const rows of chunks(sortedByKey(visitors))) {
          const inserted = await trx
            .insertInto('link_daily_visitors')
            .values(rows)
            .onConflict((oc) => oc.columns(['link_id', 'day', 'visitor_key']).doNothing())
            .returning(['link_id', 'day', 'visitor_key'])
            .execute()
          for (const r of inserted) firstVisits.add(visitorId(r.link_id, r.day, r.visitor_key))
        }

        const { rollups, breakdowns } = rollUp(clicks, firstVisits)
        for (const rows of chunks(rollups)) {
          await trx
            .insertInto('link_click_rollups')
            .values(rows)
            .onConflict((oc) =>
              oc.columns(['link_id', 'hour']).doUpdateSet((eb) => ({
                total_clicks: eb('link_click_rollups.total_clicks', '+', eb.ref('excluded.total_clicks')),
                human_clicks: eb('link_click_rollups.human_clicks', '+', eb.ref('excluded.human_clicks')),
                bot_clicks: eb('link_click_rollups.bot_clicks', '+', eb.ref('excluded.bot_clicks')),
                qr_scans: eb('link_click_rollups.qr_scans', '+', eb.ref('excluded.qr_scans')),
                unique_visitors: eb('link_click_rollups.unique_visitors', '+', eb.ref('excluded.unique_visitors')),
                // max() of two values is spelled differently by each dialect; CASE is not.
                last_human_click_at: eb
                  .case()
                  .when('excluded.last_human_click_at', '>', eb.fn.coalesce('link_click_rollups.last_human_click_at', eb.lit(0)))
                  .then(eb.ref('excluded.last_human_click_at'))
                  .else(eb.ref('link_click_rollups.last_human_click_at'))
                  .end(),
              })),
            )
            .execute()
        }
        for (const rows of chunks(breakdowns)) {
          await trx
            .insertInto('link_click_breakdowns')
            .values(rows)
            .onConflict((oc) =>
              oc.columns(['link_id', 'granularity', 'period_start', 'dimension', 'value']).doUpdateSet((eb) => ({
                clicks: eb('link_click_breakdowns.clicks', '+', eb.ref('excluded.clicks')),
              })),
            )
            .execute()
        }
      })
    },

    /**
     * Counters summed per bucket of `unit` ms (an hour or a day: both divide epoch time evenly in
     * UTC, so the bucket is plain arithmetic on both dialects), hours in [from, to).
     */
    async buckets(linkId: string, from: number, to: number, unit: number): Promise<BucketTotals[]> {
      const rows = await db
        .selectFrom('link_click_rollups')
        .select((eb) => {
          const bucket = eb('hour', '-', eb('hour', '%', unit))
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
        firstDay < endDay ? [['day', firstDay, endDay], ['hour', from, firstDay], ['hour', endDay, to]] : [['hour', from, to]]
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

    /** Retention: raw clicks before `clicksBefore`; visitor sets and salts of days before `daysBefore`. Rollups stay. */
    async prune(clicksBefore: number, daysBefore: number): Promise<void> {
      await db.deleteFrom('clicks').where('clicked_at', '<', clicksBefore).execute()
      await db.deleteFrom('link_daily_visitors').where('day', '<', daysBefore).execute()
      await db.deleteFrom('click_salts').where('day', '<', daysBefore).execute()
    },
  }
}
export type StatsRepository = ReturnType<typeof createStatsRepository>
