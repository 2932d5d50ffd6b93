import { HOUR_MS, hourOf } from './classify.js'
import { invalidDate, outOfRange, rangeReversed, tooManyBuckets } from './stats.errors.js'
import { nextDayStart, UTC, type Zone } from './stats.zone.js'

export type Interval = 'hour' | 'day' | 'month'

export const MAX_BUCKETS = 1000
const DEFAULT_DAYS = 30
// Instants a statistics range may name: no click predates the epoch, and a far-future `to` would
// answer dates of five-digit years (9999-12-31 as `to` ends in 10000).
const EARLIEST = 0
const LATEST = Date.UTC(2100, 0, 1)

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/

export interface Range {
  /** Inclusive: an hour, or a midnight of the zone (which may fall within an hour: Asia/Kolkata's do). */
  readonly from: number
  /** Exclusive: the same. */
  readonly to: number
  readonly interval: Interval
  /** Where day and month buckets, and dates, begin. */
  readonly zone: Zone
  /** Start of every bucket, oldest first: UTC hours, or the zone's midnights. */
  readonly starts: readonly number[]
}

/**
 * The range of a statistics request. Rollups are hourly, so `from` is rounded down and `to` up to the
 * hour, except an instant that begins a day of the zone (a date given as a date), which is kept as it
 * is. A date alone means its whole day in the zone (as `to`: up to the end of that day); a date-time
 * without an offset is UTC. Default: the last 30 days of the zone, today included, never before 1970.
 */
export function resolveRange(input: { from?: string; to?: string; interval: Interval; zone?: Zone }, now: number): Range {
  const zone = input.zone ?? UTC
  const range = { ...resolveSpan({ ...input, zone }, now), interval: input.interval, zone }
  const starts: number[] = []
  for (let start = bucketStart(range, range.from); start < range.to; start = nextBucket(range, start)) {
    // A month is the coarsest interval: past the bound there, only a shorter range helps.
    if (starts.length === MAX_BUCKETS) throw tooManyBuckets(range.interval === 'month' ? 'from' : 'interval', MAX_BUCKETS)
    starts.push(start)
  }
  return { ...range, starts }
}

/**
 * The instants a request's `from` and `to` span, as resolveRange reads them, without buckets (the
 * visits to missing paths use it alone).
 */
export function resolveSpan(input: { from?: string; to?: string; zone?: Zone }, now: number): { from: number; to: number } {
  const zone = input.zone ?? UTC
  const to = input.to === undefined ? now : parseInstant(input.to, 'to', zone)
  // The default span never reaches before the epoch: `to=1970-01-01` alone starts at `to`'s day.
  const from = input.from === undefined ? Math.max(EARLIEST, defaultFrom(zone, to)) : parseInstant(input.from, 'from', zone)
  if (from > to) throw rangeReversed()
  return { from: dayStartOr(zone, from, hourOf(from)), to: dayStartOr(zone, to, hourOf(to + HOUR_MS - 1)) }
}

const defaultFrom = (zone: Zone, to: number): number => {
  const last = zone.dateOf(Math.max(EARLIEST, to - 1))
  return zone.startOfDate({ ...last, day: last.day - (DEFAULT_DAYS - 1) })
}

/** `ms` when it begins a day of the zone, `otherwise` when not. */
const dayStartOr = (zone: Zone, ms: number, otherwise: number): number => (zone.startOfDate(zone.dateOf(ms)) === ms ? ms : otherwise)

/** The start of the bucket holding `ms`. */
export function bucketStart(range: Pick<Range, 'interval' | 'zone'>, ms: number): number {
  if (range.interval === 'hour') return hourOf(ms)
  const date = range.zone.dateOf(ms)
  return range.zone.startOfDate(range.interval === 'day' ? date : { ...date, day: 1 })
}

function nextBucket(range: Pick<Range, 'interval' | 'zone'>, start: number): number {
  if (range.interval === 'hour') return start + HOUR_MS
  if (range.interval === 'day') return nextDayStart(range.zone, start)
  const date = range.zone.dateOf(start)
  return range.zone.startOfDate({ year: date.year, month: date.month + 1, day: 1 })
}

/** The index in `range.starts` of the bucket holding `ms` (from range.from on). */
export function bucketIndex(range: Range, ms: number): number {
  let low = 0
  let high = range.starts.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if ((range.starts[middle] as number) <= ms) low = middle
    else high = middle - 1
  }
  return low
}

/**
 * A date (its whole day in `zone`: from its first instant, or as `to` up to the next day's) or a
 * date-time from 1970 on; calendar fields are checked, not normalised.
 */
export function parseInstant(text: string, param: 'from' | 'to', zone: Zone = UTC): number {
  const date = DATE.exec(text)
  const parts = date ?? DATE_TIME.exec(text)
  if (!parts) throw invalidDate(param)
  const [, y, mo, d, h = '0', mi = '0', s = '0', offset] = parts
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysInMonth || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw invalidDate(param)
  const ms = date ? zone.startOfDate({ year, month: month - 1, day: day + (param === 'to' ? 1 : 0) }) : Date.parse(offset ? text : `${text}Z`)
  if (Number.isNaN(ms)) throw invalidDate(param)
  if (ms < EARLIEST || ms > LATEST) throw outOfRange(param)
  return ms
}
