import { DAY_MS, HOUR_MS, hourOf } from './classify.js'
import { invalidDate, outOfRange, rangeReversed, tooManyBuckets } from './stats.errors.js'

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
  /** Inclusive, on an hour boundary. */
  readonly from: number
  /** Exclusive, on an hour boundary. */
  readonly to: number
  readonly interval: Interval
  /** Start of every bucket, oldest first. */
  readonly starts: readonly number[]
}

/**
 * The range of a statistics request. Rollups are hourly, so `from` is rounded down and `to` up to
 * the hour. A date alone means its whole UTC day (as `to`: up to the end of that day); a date-time
 * without an offset is UTC. Default: the last 30 days, today included, and never before 1970.
 */
export function resolveRange(input: { from?: string; to?: string; interval: Interval }, now: number): Range {
  const range = { ...resolveSpan(input, now), interval: input.interval }
  const starts: number[] = []
  for (let start = startOf(range.interval, range.from); start < range.to; start = next(range.interval, start)) {
    // A month is the coarsest interval: past the bound there, only a shorter range helps.
    if (starts.length === MAX_BUCKETS) throw tooManyBuckets(range.interval === 'month' ? 'from' : 'interval', MAX_BUCKETS)
    starts.push(start)
  }
  return { ...range, starts }
}

/** The hours a request's `from` and `to` span, as resolveRange reads them, without buckets (the visits to missing paths). */
export function resolveSpan(input: { from?: string; to?: string }, now: number): { from: number; to: number } {
  const to = input.to === undefined ? now : parseInstant(input.to, 'to')
  // The default span never reaches before the epoch: `to=1970-01-01` alone starts at `to`'s day.
  const from = input.from === undefined ? Math.max(EARLIEST, startOf('day', to - 1) - (DEFAULT_DAYS - 1) * DAY_MS) : parseInstant(input.from, 'from')
  if (from > to) throw rangeReversed()
  return { from: hourOf(from), to: hourOf(to + HOUR_MS - 1) }
}

export function startOf(interval: Interval, ms: number): number {
  if (interval === 'hour') return hourOf(ms)
  const d = new Date(ms)
  return interval === 'day' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
}

function next(interval: Interval, start: number): number {
  if (interval === 'hour') return start + HOUR_MS
  if (interval === 'day') return start + DAY_MS
  const d = new Date(start)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
}

/** A date (its whole day when it is `to`) or a date-time from 1970 on; calendar fields are checked, not normalised. */
export function parseInstant(text: string, param: 'from' | 'to'): number {
  const date = DATE.exec(text)
  const parts = date ?? DATE_TIME.exec(text)
  if (!parts) throw invalidDate(param)
  const [, y, mo, d, h = '0', mi = '0', s = '0', zone] = parts
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysInMonth || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw invalidDate(param)
  const ms = date ? Date.UTC(year, month - 1, day) + (param === 'to' ? DAY_MS : 0) : Date.parse(zone ? text : `${text}Z`)
  if (Number.isNaN(ms)) throw invalidDate(param)
  if (ms < EARLIEST || ms > LATEST) throw outOfRange(param)
  return ms
}
