import { HOUR_MS, hourOf } from './classify.js'
import { byField, DIMENSION_NAMES, type BreakdownField, type Dimension, type Facets } from './stats.dimensions.js'
import { bucketIndex, type Interval, type Range } from './stats.range.js'

/*
 * From rollup rows to the statistics object, the same for one link and for the overview: counters per
 * hour (or per UTC day where that is the same) summed into the zone's buckets, breakdowns cut to the
 * top values. Pure, so that the bucketing is checked without a database (stats.series.test.ts).
 */

const TOP = 10

export const iso = (ms: number) => new Date(ms).toISOString()
/** The first hour that begins at or after `ms`. */
export const ceilHour = (ms: number) => hourOf(ms + HOUR_MS - 1)

/** Counters of a period (an hour, or a UTC day where the buckets allow) starting at `hour`. */
export interface PeriodCounts {
  hour: number
  total: number
  human: number
  bot: number
  qr: number
  uniques: number
}

/** The visits of a part of an hour, counted from the raw visits: where they go instead of the whole hour. */
export interface Portion {
  start: number
  total: number
  human: number
  bot: number
  qr: number
}

export interface Summary {
  total: number
  human: number
  bot: number
  qr: number
  uniques: number
  /** Human clicks per bucket of `range.starts`. */
  series: number[]
}

/**
 * Sums periods into the range's buckets. A period goes wholly to the bucket holding its start (or the
 * range's, when it starts before), unless `portions` has its hour: then each portion goes to its own,
 * and portions outside the range nowhere. Periods are those the range reads: every hour from the range's
 * (its first one may begin before it) to its end. uniqueVisitors cannot be split (a visitor is counted in
 * the hour of their first visit of the day): a split hour's count goes with it when it starts in the range.
 */
export function summarize(range: Range, periods: readonly PeriodCounts[], portions: ReadonlyMap<number, readonly Portion[]> = new Map()): Summary {
  const summary: Summary = { total: 0, human: 0, bot: 0, qr: 0, uniques: 0, series: range.starts.map(() => 0) }
  const add = (at: number, c: Omit<Portion, 'start'>) => {
    const i = bucketIndex(range, at)
    summary.series[i] = (summary.series[i] as number) + c.human
    summary.total += c.total
    summary.human += c.human
    summary.bot += c.bot
    summary.qr += c.qr
  }
  for (const p of periods) {
    const parts = portions.get(p.hour)
    if (parts === undefined || p.hour >= range.from) summary.uniques += p.uniques
    if (parts === undefined) add(Math.max(p.hour, range.from), p)
    else for (const part of parts) if (part.start >= range.from && part.start < range.to) add(part.start, part)
  }
  return summary
}

/**
 * The instants within hours where a bucket or the range begins or ends off the hour (midnights of a zone
 * such as Asia/Kolkata), by hour: those hours' visits must be split there.
 */
export function cutsWithinHours(range: Range): Map<number, number[]> {
  const cuts = new Map<number, number[]>()
  for (const at of [range.from, ...range.starts, range.to]) {
    if (at % HOUR_MS === 0) continue
    const hour = hourOf(at)
    const list = cuts.get(hour) ?? []
    if (!list.includes(at)) list.push(at)
    cuts.set(
      hour,
      list.sort((a, b) => a - b),
    )
  }
  return cuts
}

/**
 * An hour's visits in parts that begin at its start and at each cut, counted from its raw visits
 * (`visits`, from its click blocks). Visits the rollup counted and the blocks do not hold yet (blocks
 * are written every 30 s, after the counts) are the newest: they go to the last part. Without the raw
 * visits (past the retention period), or when they do not match the rollup, the whole hour goes to
 * the part holding its start.
 */
export function portionsOf(
  hour: number,
  cuts: readonly number[],
  whole: Omit<Portion, 'start'>,
  visits: readonly { clickedAt: number; isBot: boolean; isQr: boolean }[] | undefined,
): Portion[] {
  const parts: Portion[] = [hour, ...cuts].map((start) => ({ start, total: 0, human: 0, bot: 0, qr: 0 }))
  const counters = ['total', 'human', 'bot', 'qr'] as const
  for (const v of visits ?? []) {
    if (v.clickedAt < hour || v.clickedAt >= hour + HOUR_MS) continue
    const part = parts.findLast((p) => p.start <= v.clickedAt) as Portion
    part.total++
    if (v.isBot) part.bot++
    else {
      part.human++
      if (v.isQr) part.qr++
    }
  }
  const listed = (c: (typeof counters)[number]) => parts.reduce((sum, p) => sum + p[c], 0)
  if (visits === undefined || counters.some((c) => listed(c) > whole[c]))
    return [{ start: hour, total: whole.total, human: whole.human, bot: whole.bot, qr: whole.qr }]
  const last = parts.at(-1) as Portion
  for (const c of counters) last[c] += whole[c] - listed(c)
  return parts
}

/** Top values by clicks (ties by value, so that the order is stable), then one "other" row for the rest. */
export function top(rows: { value: string; clicks: number }[], other = true): { value: string; clicks: number }[] {
  const sorted = rows
    .filter((r) => r.clicks > 0)
    .map(({ value, clicks }) => ({ value, clicks }))
    .sort((a, b) => b.clicks - a.clicks || (a.value < b.value ? -1 : 1))
  if (sorted.length <= TOP) return sorted
  if (!other) return sorted.slice(0, TOP)
  const rest = sorted.slice(TOP).reduce((sum, r) => sum + r.clicks, 0)
  return [...sorted.slice(0, TOP), { value: 'other', clicks: rest }]
}

/** Summed facets as the breakdown rows the repositories answer. */
export const breakdownRows = (sums: Facets): { dimension: Dimension; value: string; clicks: number }[] =>
  DIMENSION_NAMES.flatMap((dimension) => Object.entries(sums[dimension] ?? {}).map(([value, clicks]) => ({ dimension, value, clicks })))

/** The fields both statistics endpoints answer (the link's id, or the overview's filters and top links, go with them). */
export function statisticsBody(
  range: Range,
  summary: Summary,
  breakdowns: readonly { dimension: Dimension; value: string; clicks: number }[],
  lastClickedAt: number | null,
  /** The public statistics name no referrer host beyond the top 10, not even summed as "other". */
  audience: 'owner' | 'public' = 'owner',
): {
  from: string
  to: string
  interval: Interval
  tz: string
  totalClicks: number
  humanClicks: number
  botClicks: number
  qrScans: number
  uniqueVisitors: number
  lastClickedAt: string | null
  timeseries: { start: string; clicks: number }[]
} & Record<BreakdownField, { value: string; clicks: number }[]> {
  return {
    from: iso(range.from),
    to: iso(range.to),
    interval: range.interval,
    tz: range.zone.name,
    totalClicks: summary.total,
    humanClicks: summary.human,
    botClicks: summary.bot,
    qrScans: summary.qr,
    uniqueVisitors: summary.uniques,
    lastClickedAt: lastClickedAt === null ? null : iso(lastClickedAt),
    timeseries: range.starts.map((start, i) => ({ start: iso(start), clicks: summary.series[i] as number })),
    ...byField((dimension) =>
      top(
        breakdowns.filter((r) => r.dimension === dimension),
        dimension !== 'referrer' || audience === 'owner',
      ),
    ),
  }
}
