import type { Clock } from '../shared/clock.js'
import { defaultOf } from '../shared/schema.js'
import type { Principal } from '../tokens/tokens.service.js'
import { DAY_MS, HOUR_MS } from './classify.js'
import type { LinkClicks, LinkSet, OverviewRepository, WorkspacePeriod } from './overview.repository.js'
import type { OverviewObject, OverviewQuery } from './overview.schemas.js'
import { addFacets, type Facets } from './stats.dimensions.js'
import { resolveRange } from './stats.range.js'
import { breakdownRows, ceilHour, statisticsBody, summarize, type PeriodCounts } from './stats.series.js'
import { StatsQuery } from './stats.schemas.js'
import { resolveZone, UTC } from './stats.zone.js'

const DEFAULT_INTERVAL = defaultOf(StatsQuery, 'interval')
const DEFAULT_ZONE = defaultOf(StatsQuery, 'tz')
const TOP = 10
/** Candidates counted exactly for the top links of a whole workspace; beyond, every link is counted. */
const MAX_CANDIDATES = 1000

/**
 * The overview (GET /v1/stats): the statistics of a workspace's matching links together. Every link:
 * from the workspace's own hourly rows (workspace-rollup.ts); a narrower set: from its links' rows.
 * Hours are not split: each counts wholly in the bucket that holds its start, and in the range when it
 * begins in it (which matters only in zones whose midnights fall within an hour: docs/api/analytics.md).
 */
export function createOverviewService(deps: { repo: OverviewRepository; clock: Clock; freshen: () => Promise<void> }) {
  const { repo, clock } = deps

  /**
   * The workspace's busiest links in [from, to) from its periods' kept links (days', hours'): each kept
   * link's count in the periods that kept it is exact, and in every other period at most its bound. Links whose
   * best case cannot reach the tenth are left out; the others are counted exactly. Every link never kept
   * has at most the sum of the bounds: when that could reach the tenth, every link is counted.
   */
  async function workspaceTopLinks(ownerId: string, periods: readonly WorkspacePeriod[], from: number, to: number): Promise<LinkClicks[]> {
    const everyLink = async () => repo.setTopLinks(await repo.setLinks({ ownerId, tags: [], linkIds: [] }), from, to, TOP)
    let bounds = 0
    const kept = new Map<string, { clicks: number; bounds: number }>()
    for (const { top } of periods) {
      bounds += top.bound
      for (const [id, n] of top.counts) {
        const k = kept.get(id) ?? { clicks: 0, bounds: 0 }
        k.clicks += n
        k.bounds += top.bound
        kept.set(id, k)
      }
    }
    const best = (id: string) => ((k) => k.clicks + bounds - k.bounds)(kept.get(id) as { clicks: number; bounds: number })
    const known = [...kept.values()].map((k) => k.clicks).sort((a, b) => b - a)
    const chosen = new Set<string>()
    const counted: LinkClicks[] = []
    const count = async (threshold: number) => {
      const more = [...kept.keys()].filter((id) => !chosen.has(id) && best(id) >= threshold)
      if (more.length === 0) return true
      if (chosen.size + more.length > MAX_CANDIDATES) return false
      for (const id of more) chosen.add(id)
      // Kept links may have been deleted since: only live ones count.
      counted.push(...(await repo.setTopLinks(await repo.setLinks({ ownerId, tags: [], linkIds: more }), from, to, more.length)))
      counted.sort((a, b) => b.clicks - a.clicks || (a.linkId < b.linkId ? -1 : 1))
      return true
    }
    const tenth = () => counted[TOP - 1]?.clicks ?? 0
    // Deleted links among the kept ones may leave the tenth below the first guess: then the guess is lowered.
    if (!(await count(known[TOP - 1] ?? 0)) || !(await count(tenth()))) return everyLink()
    if (bounds > 0 && bounds >= tenth()) return everyLink()
    return counted.slice(0, TOP)
  }

  return {
    async get(principal: Principal, query: OverviewQuery): Promise<OverviewObject> {
      await deps.freshen()
      const zone = resolveZone(query.tz ?? DEFAULT_ZONE)
      const now = clock.now()
      const range = resolveRange({ from: query.from, to: query.to, interval: query.interval ?? DEFAULT_INTERVAL, zone }, now)
      const [from, to] = [ceilHour(range.from), ceilHour(range.to)]
      const set: LinkSet = {
        ownerId: principal.ownerId,
        ...(query.domain === undefined ? {} : { domain: query.domain.toLowerCase() }),
        tags: [...new Set(query.tag ?? [])],
        linkIds: [...new Set(query.linkId ?? [])],
      }
      let periods: PeriodCounts[]
      let facets: Facets
      let topLinks: LinkClicks[]
      let lastClickedAt: number | null
      if (set.domain === undefined && set.tags.length === 0 && set.linkIds.length === 0) {
        const [counters, details] = await Promise.all([repo.workspaceCounters(set.ownerId, from, to), repo.workspacePeriods(set.ownerId, from, to)])
        periods = counters
        facets = details.reduce((sum, p) => (p.facets === null ? sum : addFacets(sum, p.facets)), {} as Facets)
        ;[topLinks, lastClickedAt] = await Promise.all([workspaceTopLinks(set.ownerId, details, from, to), repo.workspaceLastHumanClickAt(set.ownerId)])
      } else {
        // UTC days are whole buckets of a UTC range: summed in SQL, 24 times fewer rows.
        const unit = range.interval === 'hour' || zone !== UTC ? HOUR_MS : DAY_MS
        const links = await repo.setLinks(set)
        const [sets, sums, busiest] = await Promise.all([
          repo.setPeriods(links, from, to, unit),
          repo.setBreakdowns(links, from, to),
          repo.setTopLinks(links, from, to, TOP),
        ])
        periods = sets
        facets = sums
        topLinks = busiest
        // The latest human click in the range is the latest of all when the range reaches now.
        const latest = Math.max(...sets.map((p) => p.lastHuman ?? -1))
        lastClickedAt = latest >= 0 && to >= now ? latest : await repo.setLastHumanClickAt(links)
      }
      return {
        ...statisticsBody(range, summarize(range, periods), breakdownRows(facets), lastClickedAt),
        filters: { domain: set.domain ?? null, tag: [...set.tags], linkId: [...set.linkIds] },
        topLinks,
      }
    },
  }
}
export type OverviewService = ReturnType<typeof createOverviewService>
