import type { LinksService } from '../links/links.service.js'
import type { Clock } from '../shared/clock.js'
import { defaultOf } from '../shared/schema.js'
import type { Principal } from '../tokens/tokens.service.js'
import { DAY_MS, dayOf, HOUR_MS } from './classify.js'
import { rangeReversed } from './stats.errors.js'
import { parseInstant, resolveRange, startOf, type Interval } from './stats.range.js'
import { byField } from './stats.dimensions.js'
import { blockClicks, type BlockCursor, type ExportedClick, type StatsRepository } from './stats.repository.js'
import { StatsQuery, type StatsObject } from './stats.schemas.js'

/** What exportClicks yields, for the export's formats (porting/). */
export type { ExportedClick }

const DEFAULT_INTERVAL = defaultOf(StatsQuery, 'interval')

const TOP = 10

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * Top values by clicks (ties by value, so that the order is stable), then one "other" row for the rest,
 * unless `other` is false (the public statistics name no referrer host beyond the top).
 */
function top(rows: { value: string; clicks: number }[], other = true): { value: string; clicks: number }[] {
  const sorted = rows
    .filter((r) => r.clicks > 0)
    .map(({ value, clicks }) => ({ value, clicks }))
    .sort((a, b) => b.clicks - a.clicks || (a.value < b.value ? -1 : 1))
  if (sorted.length <= TOP) return sorted
  if (!other) return sorted.slice(0, TOP)
  const rest = sorted.slice(TOP).reduce((sum, r) => sum + r.clicks, 0)
  return [...sorted.slice(0, TOP), { value: 'other', clicks: rest }]
}

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
  const service = {
    get: async (principal: Principal, id: string, query: StatsQuery): Promise<StatsObject> => service.ofLink(await links.get(principal, id), query, 'owner'),

    /** A link's statistics for anyone, when its owner made them public (docs/api/analytics.md#public-statistics); else 404 as an unknown link. */
    getPublic: async (id: string, query: StatsQuery): Promise<StatsObject> => service.ofLink(await links.getPublic(id), query, 'public'),

    /** The statistics of a link already found (the caller's, or a public one), as its `audience` may see them. */
    async ofLink(link: { id: string }, query: StatsQuery, audience: Audience): Promise<StatsObject> {
      await deps.freshen()
      const interval: Interval = query.interval ?? DEFAULT_INTERVAL
      const range = resolveRange({ from: query.from, to: query.to, interval }, clock.now())
      const unit = interval === 'hour' ? HOUR_MS : DAY_MS
      const [buckets, breakdowns, lastClickedAt] = await Promise.all([
        repo.buckets(link.id, range.from, range.to, unit),
        repo.breakdowns(link.id, range.from, range.to),
        repo.lastHumanClickAt(link.id),
      ])
      const series = new Map(range.starts.map((start) => [start, 0]))
      const totals = { human: 0, bot: 0, qr: 0, uniques: 0 }
      for (const b of buckets) {
        const start = startOf(interval, b.bucket)
        series.set(start, (series.get(start) ?? 0) + b.human)
        totals.human += b.human
        totals.bot += b.bot
        totals.qr += b.qr
        totals.uniques += b.uniques
      }
      return {
        linkId: link.id,
        from: iso(range.from),
        to: iso(range.to),
        interval,
        totalClicks: totals.human + totals.bot,
        humanClicks: totals.human,
        botClicks: totals.bot,
        qrScans: totals.qr,
        uniqueVisitors: totals.uniques,
        lastClickedAt: lastClickedAt === null ? null : iso(lastClickedAt),
        timeseries: [...series].map(([start, clicks]) => ({ start: iso(start), clicks })),
        ...byField((dimension) =>
          top(
            breakdowns.filter((r) => r.dimension === dimension),
            dimension !== 'referrer' || audience === 'owner',
          ),
        ),
      }
    },

    /**
     * The link's recorded visits in [from, to) (default: the whole retention period), oldest first,
     * read in pages of `batch` click blocks (one roll-up's visits of the link each) as the consumer takes them. Checks the link and the range before the first read,
     * so that a caller can still answer an error.
     */
    async exportClicks(principal: Principal, id: string, query: { from?: string; to?: string }, batch = 16): Promise<AsyncGenerator<ExportedClick>> {
      const link = await links.get(principal, id)
      const now = clock.now()
      const to = query.to === undefined ? now + 1 : parseInstant(query.to, 'to')
      const from = Math.max(query.from === undefined ? 0 : parseInstant(query.from, 'from'), now - deps.retentionDays * DAY_MS)
      if (query.from !== undefined && query.to !== undefined && parseInstant(query.from, 'from') > to) throw rangeReversed()
      return (async function* () {
        // Blocks come in order of their first visit. Blocks of one link rarely overlap in time (a crashed
        // instance's journal rolled up late), so visits are emitted once no later block can hold an older one.
        let waiting: ExportedClick[] = []
        let after: BlockCursor | undefined
        for (;;) {
          const blocks = await repo.clickBlocks(link.id, from, to, after, batch)
          for (const block of blocks) {
            const ready = waiting.filter((c) => c.clickedAt < block.startAt)
            if (ready.length > 0) {
              yield* ready
              waiting = waiting.filter((c) => c.clickedAt >= block.startAt)
            }
            const clicks = blockClicks(block.data).filter((c) => c.clickedAt >= from && c.clickedAt < to)
            waiting = waiting.length === 0 ? clicks : [...waiting, ...clicks].sort((x, y) => x.clickedAt - y.clickedAt)
          }
          const last = blocks.at(-1)
          if (blocks.length < batch || last === undefined) break
          after = { startAt: last.startAt, id: last.id }
        }
        yield* waiting
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
