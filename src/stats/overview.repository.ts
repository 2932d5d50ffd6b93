import { sql } from 'kysely'
import { chunks } from '../shared/chunks.js'
import type { Db } from '../storage/database.js'
import { bucketStart } from '../storage/dialect.js'
import { addFacets, readFacets, type Facets } from './stats.dimensions.js'
import type { PeriodCounts } from './stats.series.js'
import { facetSpans } from './facet-spans.js'
import { hourBreakdowns } from './rollup.repository.js'
import { TopLinks } from './top-links.js'

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

/** A workspace's breakdowns and busiest links of a period (an hour or a day), parsed. */
export interface WorkspacePeriod {
  facets: Facets | null
  top: TopLinks
}

/** Ids per query: far below both databases' bound-parameter limits. */
const CHUNK = 5000

/** The links of a set: their ids, or (a domain alone, or every link) the query that finds them. */
export type LinkSelection = { readonly ids: readonly string[] } | { readonly ownerId: string; readonly domain?: string | undefined }

/** What `link_id in …` takes, one query each: chunks of the ids, or the one subquery. */
function linkParts(db: Db, selection: LinkSelection) {
  if ('ids' in selection) return chunks(selection.ids, CHUNK)
  let links = db.selectFrom('links').select('id').where('owner_id', '=', selection.ownerId).where('deleted_at', 'is', null)
  if (selection.domain !== undefined) links = links.where('domain', '=', selection.domain)
  return [links]
}

const byClicks = (a: { clicks: number; linkId: string }, b: { clicks: number; linkId: string }) => b.clicks - a.clicks || (a.linkId < b.linkId ? -1 : 1)

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
    /** The workspace's counters of the hours in [from, to). */
    async workspaceCounters(ownerId: string, from: number, to: number): Promise<PeriodCounts[]> {
      const rows = await db
        .selectFrom('workspace_click_rollups')
        .select(['hour', 'total_clicks', 'human_clicks', 'bot_clicks', 'qr_scans', 'unique_visitors'])
        .where('owner_id', '=', ownerId)
        .where('hour', '>=', from)
        .where('hour', '<', to)
        .execute()
      return rows.map((r) => ({
        hour: Number(r.hour),
        total: Number(r.total_clicks),
        human: Number(r.human_clicks),
        bot: Number(r.bot_clicks),
        qr: Number(r.qr_scans),
        uniques: Number(r.unique_visitors),
      }))
    },

    /**
     * The workspace's breakdowns and busiest links of the hours in [from, to), in periods: whole UTC days
     * before the compaction's watermark from their day rows, the other hours from their own rows.
     */
    async workspacePeriods(ownerId: string, from: number, to: number): Promise<WorkspacePeriod[]> {
      const { days: dayPart, hours: hourParts } = await facetSpans(db, from, to)
      const periods: WorkspacePeriod[] = []
      const parse = (r: { facets: string | null; top_links: string | null; top_bound: number }) => ({
        facets: r.facets === null ? null : readFacets(r.facets),
        top: TopLinks.parse(r.top_links, r.top_bound),
      })
      if (dayPart !== undefined) {
        const days = await db
          .selectFrom('workspace_click_days')
          .select(['facets', 'top_links', 'top_bound'])
          .where('owner_id', '=', ownerId)
          .where('day', '>=', dayPart[0])
          .where('day', '<', dayPart[1])
          .execute()
        periods.push(...days.map(parse))
      }
      for (const [start, end] of hourParts) {
        const hours = await db
          .selectFrom('workspace_click_rollups')
          .select(['facets', 'top_links', 'top_bound'])
          .where('owner_id', '=', ownerId)
          .where('hour', '>=', start)
          .where('hour', '<', end)
          .execute()
        periods.push(...hours.map(parse))
      }
      return periods
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
     * The set's live links. A set narrowed by ids or tags is found from the narrowest of them (the ids
     * given, or the first tag's links in link_tags_owner_tag), the other filters checked on the rows
     * found: with the owner's condition in the same query, SQLite would rather walk every link of the
     * owner. A domain alone, or no filter, may hold any number of links: it stays a query
     * (links_owner_domain, links_owner_created) that each read takes as a subquery.
     */
    async setLinks(set: LinkSet): Promise<LinkSelection> {
      if (set.linkIds.length === 0 && set.tags.length === 0) return { ownerId: set.ownerId, domain: set.domain }
      let ids = [...set.linkIds]
      for (const [i, tag] of set.tags.entries()) {
        const tagged = (await db.selectFrom('link_tags').select('link_id').where('owner_id', '=', set.ownerId).where('tag', '=', tag).execute()).map(
          (r) => r.link_id,
        )
        const having = new Set(tagged)
        ids = i === 0 && set.linkIds.length === 0 ? tagged : ids.filter((id) => having.has(id))
      }
      const live: string[] = []
      for (const part of chunks(ids, CHUNK)) {
        const rows = await db.selectFrom('links').select(['id', 'owner_id', 'domain', 'deleted_at']).where('id', 'in', part).execute()
        for (const r of rows) if (r.owner_id === set.ownerId && r.deleted_at === null && (set.domain === undefined || r.domain === set.domain)) live.push(r.id)
      }
      return { ids: live }
    },

    /**
     * The links' counters per bucket of `unit` ms (an hour, or a UTC day), hours in [from, to), with the
     * latest human click of each: each link's rollup hours, a range of their key.
     */
    async setPeriods(links: LinkSelection, from: number, to: number, unit: number): Promise<(PeriodCounts & { lastHuman: number | null })[]> {
      const periods = new Map<number, PeriodCounts & { lastHuman: number | null }>()
      for (const part of linkParts(db, links)) {
        const rows = await db
          .selectFrom('link_click_rollups as r')
          .select((eb) => [
            bucketStart('r.hour', unit).as('bucket'),
            eb.fn.sum<number | string>('r.total_clicks').as('total'),
            eb.fn.sum<number | string>('r.human_clicks').as('human'),
            eb.fn.sum<number | string>('r.bot_clicks').as('bot'),
            eb.fn.sum<number | string>('r.qr_scans').as('qr'),
            eb.fn.sum<number | string>('r.unique_visitors').as('uniques'),
            eb.fn.max('r.last_human_click_at').as('last_human'),
          ])
          .where('r.link_id', 'in', part)
          .where('r.hour', '>=', from)
          .where('r.hour', '<', to)
          .groupBy('bucket')
          .execute()
        for (const r of rows) {
          const hour = Number(r.bucket)
          const add = counts(r)
          const lastHuman = r.last_human === null ? null : Number(r.last_human)
          const p = periods.get(hour)
          if (p === undefined) periods.set(hour, { hour, ...add, lastHuman })
          else {
            for (const k of ['total', 'human', 'bot', 'qr', 'uniques'] as const) p[k] += add[k]
            if (lastHuman !== null && lastHuman > (p.lastHuman ?? -1)) p.lastHuman = lastHuman
          }
        }
      }
      return [...periods.values()]
    },

    /** The latest human click of these links, whatever the range: each link's latest hour that has one. */
    async setLastHumanClickAt(links: LinkSelection): Promise<number | null> {
      let latest: number | null = null
      for (const part of linkParts(db, links)) {
        const row = await db
          .selectFrom('links as l')
          .select(
            sql<
              number | string | null
            >`max((select r.last_human_click_at from link_click_rollups r where r.link_id = l.id and r.human_clicks > 0 order by r.hour desc limit 1))`.as(
              'at',
            ),
          )
          .where('l.id', 'in', part)
          .executeTakeFirst()
        if (row?.at != null && Number(row.at) > (latest ?? -1)) latest = Number(row.at)
      }
      return latest
    },

    /**
     * Human clicks per dimension and value of these links, hours in [from, to): whole UTC days before
     * the compaction's watermark from their day rows, the other hours from their rollup rows (as
     * StatsRepository.breakdowns does for one link).
     */
    async setBreakdowns(links: LinkSelection, from: number, to: number): Promise<Facets> {
      const { days: dayPart, hours: hourParts } = await facetSpans(db, from, to)
      const sums: Facets = {}
      for (const part of linkParts(db, links)) {
        if (dayPart !== undefined) {
          const days = await db
            .selectFrom('link_click_facets')
            .select('counts')
            .where('link_id', 'in', part)
            .where('granularity', '=', 'day')
            .where('period_start', '>=', dayPart[0])
            .where('period_start', '<', dayPart[1])
            .execute()
          for (const r of days) addFacets(sums, readFacets(r.counts))
        }
        // hourBreakdowns: hours still in the rollups and those of releases that kept them apart alike.
        for (const [start, end] of hourParts) for (const r of await hourBreakdowns(db, part, start, end)) addFacets(sums, readFacets(r.counts))
      }
      return sums
    },

    /** Of these links, the `limit` with the most human clicks in [from, to), most first (ties by id). */
    async setTopLinks(links: LinkSelection, from: number, to: number, limit: number): Promise<LinkClicks[]> {
      const best: { linkId: string; clicks: number }[] = []
      for (const part of linkParts(db, links)) {
        const rows = await db
          .selectFrom('link_click_rollups')
          .select((eb) => ['link_id', eb.fn.sum<number | string>('human_clicks').as('clicks')])
          .where('link_id', 'in', part)
          .where('hour', '>=', from)
          .where('hour', '<', to)
          .where('human_clicks', '>', 0)
          .groupBy('link_id')
          .orderBy('clicks', 'desc')
          .orderBy('link_id')
          .limit(limit)
          .execute()
        // Each link is in one part: the best of all are among the best of each.
        best.push(...rows.map((r) => ({ linkId: r.link_id, clicks: Number(r.clicks) })))
      }
      const chosen = best.sort(byClicks).slice(0, limit)
      if (chosen.length === 0) return []
      const details = new Map(
        (
          await db
            .selectFrom('links')
            .select(['id', 'domain', 'path', 'title'])
            .where(
              'id',
              'in',
              chosen.map((c) => c.linkId),
            )
            .execute()
        ).map((l) => [l.id, l]),
      )
      return chosen.flatMap((c) => {
        const link = details.get(c.linkId)
        return link === undefined ? [] : [{ linkId: c.linkId, domain: link.domain, path: link.path, title: link.title, clicks: c.clicks }]
      })
    },
  }
}
export type OverviewRepository = ReturnType<typeof createOverviewRepository>
