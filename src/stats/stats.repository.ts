import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { sql } from 'kysely'
import type { Db } from '../storage/database.js'
import { bucketStart, isOneOf, type DialectAdapter } from '../storage/dialect.js'
import { compactBlocks } from './block-compaction.js'
import { blockRowVisits } from './block-pack.js'
import { dayOf, HOUR_MS } from './classify.js'
import { hourBreakdowns, ROLLUP_LOCK } from './rollup.repository.js'
import { addFacets, DIMENSION_NAMES, readFacets, type Dimension, type Facets, type Profile } from './stats.dimensions.js'
import { inTransaction } from '../storage/transaction.js'
import { createOverviewRepository } from './overview.repository.js'
import { facetSpans } from './facet-spans.js'
import { linkHourOf, takeFromWorkspace } from './workspace-rollup.js'

/** Rows per retention delete: a few milliseconds each. */
const PRUNE_BATCH = 2000

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
  language: string | null
  utmSource: string | null
  utmMedium: string | null
  utmCampaign: string | null
  city: string | null
}
/** A click block as stored: the roll-up's JSON in `data`, or a compacted row's `packed` visits (ADR 0014). */
export interface BlockRow {
  readonly data: string
  readonly packed?: Uint8Array | null
}

/** The visits of one click block (a row, or the roll-up's JSON), oldest first, as exported. */
export function blockClicks(block: BlockRow | string): ExportedClick[] {
  const { at, profile, profiles } = blockRowVisits(typeof block === 'string' ? { data: block } : block)
  return at.map((clickedAt, i) => {
    const v = profiles[profile[i] as number] as Profile
    return {
      clickedAt,
      referrer: v.referrer,
      browser: v.browser,
      os: v.os,
      device: v.device,
      country: v.country,
      isQr: v.qr,
      isBot: v.bot,
      language: v.language,
      utmSource: v.utmSource,
      utmMedium: v.utmMedium,
      utmCampaign: v.utmCampaign,
      city: v.city,
    }
  })
}

/** A click block without its visits: which the export reads next (stats.service.ts). */
export interface BlockHead {
  readonly id: number
  readonly startAt: number
  readonly clicks: number
}

export function createStatsRepository(db: Db, dialect: DialectAdapter) {
  return {
    // The overview's reads (GET /v1/stats), in a file of their own.
    ...createOverviewRepository(db),

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
     * Human clicks per dimension and value, hours in [from, to): whole UTC days that have their day
     * rows (those before the compaction's watermark: click-rollup.ts, compactDays) from these, the
     * hours before and after them from their rollup rows' breakdowns (hourBreakdowns).
     */
    async breakdowns(linkId: string, from: number, to: number): Promise<{ dimension: Dimension; value: string; clicks: number }[]> {
      const { days, hours } = await facetSpans(db, from, to)
      const sums: Facets = {}
      if (days !== undefined) {
        const rows = await db
          .selectFrom('link_click_facets')
          .select('counts')
          .where('link_id', '=', linkId)
          .where('granularity', '=', 'day')
          .where('period_start', '>=', days[0])
          .where('period_start', '<', days[1])
          .execute()
        for (const r of rows) addFacets(sums, readFacets(r.counts))
      }
      for (const [start, end] of hours) for (const r of await hourBreakdowns(db, [linkId], start, end)) addFacets(sums, readFacets(r.counts))
      return DIMENSION_NAMES.flatMap((dimension) => Object.entries(sums[dimension] ?? {}).map(([value, clicks]) => ({ dimension, value, clicks })))
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
     * The first `limit` of the link's click blocks that may hold visits in [at, to), in (start_at, id)
     * order, without their visits. A block lies within one UTC day (an hour's, or a day's once
     * compacted), so those holding `at` begin on its day: a range of the (link_id, start_at) index.
     */
    async blockHeads(linkId: string, at: number, to: number, limit: number): Promise<BlockHead[]> {
      const rows = await db
        .selectFrom('click_blocks')
        .select(['id', 'start_at', 'clicks'])
        .where('link_id', '=', linkId)
        .where('start_at', '>=', dayOf(at))
        .where('start_at', '<', to)
        .where('end_at', '>=', at)
        .orderBy('start_at')
        .orderBy('id')
        .limit(limit)
        .execute()
      return rows.map((r) => ({ id: Number(r.id), startAt: Number(r.start_at), clicks: Number(r.clicks) }))
    },

    /** The rows of these click blocks that are still there (a compaction may have replaced some since their heads were read). */
    async blockRows(ids: readonly number[]): Promise<Map<number, BlockRow>> {
      const rows = ids.length === 0 ? [] : await db.selectFrom('click_blocks').select(['id', 'data', 'packed']).where('id', 'in', ids).execute()
      return new Map(rows.map((r) => [Number(r.id), { data: r.data, packed: r.packed }]))
    },

    /** The link's visits of one hour, from the blocks that hold it (its own, or its day's once compacted), in one query. */
    async hourClicks(linkId: string, hour: number): Promise<ExportedClick[]> {
      const rows = await db
        .selectFrom('click_blocks')
        .select(['data', 'packed'])
        .where('link_id', '=', linkId)
        .where('start_at', '>=', dayOf(hour))
        .where('start_at', '<', hour + HOUR_MS)
        .where('end_at', '>=', hour)
        .orderBy('start_at')
        .orderBy('id')
        .execute()
      return rows.flatMap((r) => blockClicks(r)).filter((c) => c.clickedAt >= hour && c.clickedAt < hour + HOUR_MS)
    },

    /**
     * Compacts the click blocks due at `now` for about `budgetMs` (block-compaction.ts); true once none is left.
     */
    compactBlocks: (now: number, budgetMs?: number): Promise<boolean> => compactBlocks(db, now, budgetMs),

    /**
     * Retention: click blocks whose newest visit is before `clicksBefore`; visitor sets and salts of
     * days before `daysBefore`. Rollups and breakdowns stay. In batches, as the purge.
     */
    async prune(clicksBefore: number, daysBefore: number): Promise<void> {
      // Blocks are numbered in the order written, which is about the order of their visits: the walk
      // from the oldest stops at the first page with no block to delete (blocks have no end_at index,
      // which cost every block written more than it saves here).
      for (let after = 0; ;) {
        const page = await db.selectFrom('click_blocks').select(['id', 'end_at']).where('id', '>', after).orderBy('id').limit(PRUNE_BATCH).execute()
        const expired = page.filter((b) => Number(b.end_at) < clicksBefore).map((b) => Number(b.id))
        if (expired.length === 0) break
        await db.deleteFrom('click_blocks').where('id', 'in', expired).execute()
        after = Number((page.at(-1) as (typeof page)[number]).id)
        await yieldToEventLoop()
      }
      while ((await dialect.deleteBatch(db, 'link_daily_visitors', sql`day < ${daysBefore}`, PRUNE_BATCH)) > 0) await yieldToEventLoop()
      await db.deleteFrom('click_salts').where('day', '<', daysBefore).execute()
    },

    /**
     * One batch of a deleted link's statistics (links.purger.ts): its raw clicks first, its counters
     * last, each batch of hourly counters taken out of its workspace's in the same transaction, under
     * the roll-up lock (workspace-rollup.ts).
     */
    async purgeLink(linkId: string, limit: number): Promise<number> {
      for (const table of ['click_blocks', 'link_daily_visitors', 'link_click_facets'] as const) {
        const deleted = await dialect.deleteBatch(db, table, isOneOf('link_id', [linkId]), limit)
        if (deleted > 0) return deleted
      }
      return inTransaction(db, async (trx) => {
        await dialect.lockForTransaction(trx, ROLLUP_LOCK)
        const rows = await trx.selectFrom('link_click_rollups').selectAll().where('link_id', '=', linkId).orderBy('hour').limit(limit).execute()
        const last = rows.at(-1)
        if (last === undefined) return 0
        const link = await trx.selectFrom('links').select('owner_id').where('id', '=', linkId).executeTakeFirst()
        if (link !== undefined)
          await takeFromWorkspace(
            trx,
            rows.map((r) => linkHourOf(link.owner_id, r)),
          )
        await trx.deleteFrom('link_click_rollups').where('link_id', '=', linkId).where('hour', '<=', Number(last.hour)).execute()
        return rows.length
      })
    },
  }
}
export type StatsRepository = ReturnType<typeof createStatsRepository>
