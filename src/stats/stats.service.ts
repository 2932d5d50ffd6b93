import type { LinksService } from '../links/links.service.js'
import type { Clock } from '../shared/clock.js'
import { defaultOf } from '../shared/schema.js'
import type { Principal } from '../tokens/tokens.service.js'
import { DAY_MS, dayOf, HOUR_MS, hourOf } from './classify.js'
import { rangeReversed } from './stats.errors.js'
import { parseInstant, resolveRange } from './stats.range.js'
import { exportPage } from './click-export.js'
import type { ExportedClick, StatsRepository } from './stats.repository.js'
import { StatsQuery, type StatsObject } from './stats.schemas.js'
import { ceilHour, cutsWithinHours, portionsOf, statisticsBody, summarize, type Portion } from './stats.series.js'
import { resolveZone, UTC } from './stats.zone.js'
import { createOverviewService } from './overview.service.js'

/** What exportClicks yields, for the export's formats (porting/). */
export type { ExportedClick }

const DEFAULT_INTERVAL = defaultOf(StatsQuery, 'interval')
const DEFAULT_ZONE = defaultOf(StatsQuery, 'tz')

/** Who reads the statistics: the link's owner, or anyone (public statistics: no referrer hosts beyond the top 10, not even summed). */
export type Audience = 'owner' | 'public'

export function createStatsService(deps: {
  repo: StatsRepository
  links: LinksService
  clock: Clock
  retentionDays: number
  /** Counts this instance's latest visits before a read (ClickRecorder.freshen). */
  freshen: () => Promise<void>
}) {
  const { repo, links, clock } = deps
  const overview = createOverviewService(deps)
  const service = {
    /** The statistics of a workspace's matching links together (GET /v1/stats: overview.service.ts). */
    overview: overview.get,

    get: async (principal: Principal, id: string, query: StatsQuery): Promise<StatsObject> => service.ofLink(await links.get(principal, id), query, 'owner'),

    /** A link's statistics for anyone, when its owner made them public (docs/api/analytics.md#public-statistics); else 404 as an unknown link. */
    getPublic: async (id: string, query: StatsQuery): Promise<StatsObject> => service.ofLink(await links.getPublic(id), query, 'public'),

    /**
     * The statistics of a link already found (the caller's, or a public one), as its `audience` may see
     * them. Hours that a bucket or the range begins within (midnights of a zone such as Asia/Kolkata)
     * are split at that instant by the link's raw visits, while they are kept (portionsOf); breakdowns
     * and uniqueVisitors take the hours that begin in the range.
     */
    async ofLink(link: { id: string }, query: StatsQuery, audience: Audience): Promise<StatsObject> {
      await deps.freshen()
      const zone = resolveZone(query.tz ?? DEFAULT_ZONE)
      const now = clock.now()
      const range = resolveRange({ from: query.from, to: query.to, interval: query.interval ?? DEFAULT_INTERVAL, zone }, now)
      const end = ceilHour(range.to)
      // UTC days are whole buckets of a UTC range: summed in SQL, 24 times fewer rows.
      const unit = range.interval === 'hour' || zone !== UTC ? HOUR_MS : DAY_MS
      const [periods, breakdowns, lastClickedAt] = await Promise.all([
        repo.buckets(link.id, hourOf(range.from), end, unit),
        repo.breakdowns(link.id, ceilHour(range.from), end),
        repo.lastHumanClickAt(link.id),
      ])
      const counts = periods.map((p) => ({ ...p, hour: p.bucket }))
      const retainedFrom = now - deps.retentionDays * DAY_MS
      const portions = new Map<number, Portion[]>()
      await Promise.all(
        [...cutsWithinHours(range)].map(async ([hour, cuts]) => {
          const whole = counts.find((p) => p.hour === hour)
          if (whole === undefined || whole.total === 0) return
          const visits = hour >= retainedFrom ? await repo.hourClicks(link.id, hour) : undefined
          portions.set(hour, portionsOf(hour, cuts, whole, visits))
        }),
      )
      return { linkId: link.id, ...statisticsBody(range, summarize(range, counts, portions), breakdowns, lastClickedAt, audience) }
    },

    /**
     * The link's recorded visits in [from, to) (default: the whole retention period), oldest first,
     * read a page of about `budget` visits at a time as the consumer takes them. Checks the link and the range before the first read,
     * so that a caller can still answer an error.
     */
    async exportClicks(principal: Principal, id: string, query: { from?: string; to?: string }, budget = 50_000): Promise<AsyncGenerator<ExportedClick>> {
      const link = await links.get(principal, id)
      const now = clock.now()
      const to = query.to === undefined ? now + 1 : parseInstant(query.to, 'to')
      const from = Math.max(query.from === undefined ? 0 : parseInstant(query.from, 'from'), now - deps.retentionDays * DAY_MS)
      if (query.from !== undefined && query.to !== undefined && parseInstant(query.from, 'from') > to) throw rangeReversed()
      return (async function* () {
        // Every visit before `at` has been given. Each page gives those of [at, until) from the blocks
        // that may hold them; the next page starts from `until` and reads its blocks again, so a block
        // replaced in between (the compaction, ADR 0014) is read once, in whichever form is there.
        for (let at = from; at < to;) {
          const page = await exportPage(repo, link.id, at, to, budget)
          if (page === undefined) continue
          yield* page.clicks
          at = page.until
        }
      })()
    },

    /**
     * Retention: raw clicks older than the retention period go; rollups stay. Daily visitor sets and
     * salts are only needed while their day can still receive visits (today, and yesterday's late flushes).
     */
    async prune(): Promise<void> {
      const now = clock.now()
      await repo.prune(now - deps.retentionDays * DAY_MS, dayOf(now) - DAY_MS)
    },
  }
  return service
}
export type StatsService = ReturnType<typeof createStatsService>
