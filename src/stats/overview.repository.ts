import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { Db } from '../storage/database.js'
import { bucketStart } from '../storage/dialect.js'
import { DAY_MS, dayOf } from './classify.js'
import { facetsCompactedBefore } from './rollup.repository.js'
import { addFacets, type Facets } from './stats.dimensions.js'
import type { PeriodCounts } from './stats.series.js'
import { HourTopLinks } from './workspace-rollup.js'

/** The links an overview covers: a workspace's live links, narrowed by every filter given. */
export interface LinkSet {
  readonly ownerId: string
  readonly domain?: string
  /** Links carrying every one of these. */
  readonly tags: readonly string[]
  /** Links among these (none: no such filter). */
  readonly linkIds: readonly string[]
}

export interface LinkClicks {
  linkId: string
  domain: string
  path: string
  title: string | null
  clicks: number
}

/** A workspace's hour (workspace_click_rollups), parsed. */
export interface WorkspaceHour extends PeriodCounts {
  facets: Facets | null
  top: HourTopLinks
}

/** The set's links, as a condition on `links as l`: owner and live first, so that every index used is the owner's. */
function inSet(set: LinkSet): RawBuilder<SqlBool> {
  const parts = [sql`l.owner_id = ${set.ownerId}`, sql`l.deleted_at is null`]
  if (set.domain !== undefined) parts.push(sql`l.domain = ${set.domain}`)
  if (set.linkIds.length > 0) parts.push(sql`l.id in (${sql.join([...set.linkIds])})`)
  // Each through link_tags_owner_tag: the owner's links carrying the tag.
  for (const tag of set.tags) parts.push(sql`l.id in (select t.link_id from link_tags t where t.owner_id = ${set.ownerId} and t.tag = ${tag})`)
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`
}

const counts = (r: { total: unknown; human: unknown; bot: unknown; qr: unknown; uniques: unknown }) => ({
  // PostgreSQL's sum(bigint) is a numeric, which pg returns as a string.
  total: Number(r.total),
  human: Number(r.human),
  bot: Number(r.bot),
  qr: Number(r.qr),
  uniques: Number(r.uniques),
})

/** The overview's reads (GET /v1/stats): of a workspace's rows for all its links, of the links' own rows for a narrower set. */
export function createOverviewRepository(db: Db) {
  return {
    /** The workspace's hours in [from, to), oldest first. */
    async workspaceHours(ownerId: string, from: number, to: number): Promise<WorkspaceHour[]> {
      const rows = await db
        .selectFrom('workspace_click_rollups')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('hour', '>=', from)
        .where('hour', '<', to)
        .orderBy('hour')
        .execute()
      return rows.map((r) => ({
        hour: Number(r.hour),
        total: Number(r.total_clicks),
        human: Number(r.human_clicks),
        bot: Number(r.bot_clicks),
        qr: Number(r.qr_scans),
        uniques: Number(r.unique_visitors),
        facets: r.facets === null ? null : (JSON.parse(r.facets) as Facets),
        top: HourTopLinks.parse(r.top_links, r.top_bound),
      }))
    },

    /** The latest human click of the workspace's links, from its latest hour that has one. */
    async workspaceLastHumanClickAt(ownerId: string): Promise<number | null> {
      const row = await db
        .selectFrom('workspace_click_rollups')
        .select('last_human_click_at')
        .where('owner_id', '=', ownerId)
        .where('human_clicks', '>', 0)
        .orderBy('hour', 'desc')
        .limit(1)
        .executeTakeFirst()
      return row?.last_human_click_at == null ? null : Number(row.last_human_click_at)
    },

    /**
     * The set's counters per bucket of `unit` ms (an hour, or a UTC day), hours in [from, to), with the
     * latest human click of each: the set's links, then each one's rollup hours (a range of their key).
     */
    async setPeriods(set: LinkSet, from: number, to: number, unit: number): Promise<(PeriodCounts & { lastHuman: number | null })[]> {
      const rows = await db
        .selectFrom('links as l')
        .innerJoin('link_click_rollups as r', 'r.link_id', 'l.id')
        .select((eb) => [
          bucketStart('r.hour', unit).as('bucket'),
          eb.fn.sum<number | string>('r.total_clicks').as('total'),
          eb.fn.sum<number | string>('r.human_clicks').as('human'),
          eb.fn.sum<number | string>('r.bot_clicks').as('bot'),
          eb.fn.sum<number | string>('r.qr_scans').as('qr'),
          eb.fn.sum<number | string>('r.unique_visitors').as('uniques'),
          eb.fn.max('r.last_human_click_at').as('last_human'),
        ])
        .where(inSet(set))
        .where('r.hour', '>=', from)
        .where('r.hour', '<', to)
        .groupBy('bucket')
        .execute()
      return rows.map((r) => ({ hour: Number(r.bucket), ...counts(r), lastHuman: r.last_human === null ? null : Number(r.last_human) }))
    },

    /** The latest human click of the set's links, whatever the range: each link's latest hour that has one. */
    async setLastHumanClickAt(set: LinkSet): Promise<number | null> {
      const row = await db
        .selectFrom('links as l')
        .select(
          sql<
            number | string | null
          >`max((select r.last_human_click_at from link_click_rollups r where r.link_id = l.id and r.human_clicks > 0 order by r.hour desc limit 1))`.as('at'),
        )
        .where(inSet(set))
        .executeTakeFirst()
      return row?.at == null ? null : Number(row.at)
    },

    /**
     * Human clicks per dimension and value of the set's links, hours in [from, to): whole UTC days
     * before the compaction's watermark from their day rows, the other hours from their rollup rows
     * (as StatsRepository.breakdowns does for one link).
     */
    async setBreakdowns(set: LinkSet, from: number, to: number): Promise<Facets> {
      const firstDay = dayOf(from + DAY_MS - 1)
      const endDay = Math.max(firstDay, Math.min(dayOf(to), await facetsCompactedBefore(db)))
      const hourParts: [number, number][] =
        firstDay < endDay
          ? [
              [from, firstDay],
              [endDay, to],
            ]
          : [[from, to]]
      const sums: Facets = {}
      if (firstDay < endDay) {
        const days = await db
          .selectFrom('links as l')
          .innerJoin('link_click_facets as f', 'f.link_id', 'l.id')
          .select('f.counts')
          .where(inSet(set))
          .where('f.granularity', '=', 'day')
          .where('f.period_start', '>=', firstDay)
          .where('f.period_start', '<', endDay)
          .execute()
        for (const r of days) addFacets(sums, JSON.parse(r.counts) as Facets)
      }
      for (const [start, end] of hourParts) {
        if (start >= end) continue
        const hours = await db
          .selectFrom('links as l')
          .innerJoin('link_click_rollups as r', 'r.link_id', 'l.id')
          .select('r.facets')
          .where(inSet(set))
          .where('r.hour', '>=', start)
          .where('r.hour', '<', end)
          .where('r.facets', 'is not', null)
          .execute()
        for (const r of hours) addFacets(sums, JSON.parse(r.facets as string) as Facets)
      }
      return sums
    },

    /** The set's `limit` links with the most human clicks in [from, to), most first (ties by id). */
    async setTopLinks(set: LinkSet, from: number, to: number, limit: number): Promise<LinkClicks[]> {
      const rows = await db
        .selectFrom('links as l')
        .innerJoin('link_click_rollups as r', 'r.link_id', 'l.id')
        .select((eb) => ['l.id', 'l.domain', 'l.path', 'l.title', eb.fn.sum<number | string>('r.human_clicks').as('clicks')])
        .where(inSet(set))
        .where('r.hour', '>=', from)
        .where('r.hour', '<', to)
        .where('r.human_clicks', '>', 0)
        .groupBy(['l.id', 'l.domain', 'l.path', 'l.title'])
        .orderBy('clicks', 'desc')
        .orderBy('l.id')
        .limit(limit)
        .execute()
      return rows.map((r) => ({ linkId: r.id, domain: r.domain, path: r.path, title: r.title, clicks: Number(r.clicks) }))
    },
  }
}
export type OverviewRepository = ReturnType<typeof createOverviewRepository>
