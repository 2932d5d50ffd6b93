import { validationError } from '../shared/errors.js'
import { DAY_MS, HOUR_MS } from '../shared/time.js'

/** A calendar date: month 0-11, as Date.UTC takes it; out-of-range days and months roll over the same way. */
export interface LocalDate {
  readonly year: number
  readonly month: number
  readonly day: number
}

/**
 * An IANA time zone as the statistics read it: which local date an instant falls on, and the instant
 * each local date begins. Offsets come from the runtime's time zone data (Intl), so daylight saving
 * time moves them: a local day lasts 23, 24 or 25 hours, and in a zone such as Asia/Kolkata (+05:30) or
 * Asia/Kathmandu (+05:45) it begins within a UTC hour, not on one.
 */
export interface Zone {
  /** The canonical name (`Europe/Paris`, `UTC`). */
  readonly name: string
  /** Local time minus UTC at `ms`, in milliseconds. */
  offsetAt(ms: number): number
  /** The local date that `ms` falls on. */
  dateOf(ms: number): LocalDate
  /** The first instant of a local date: its midnight, or the end of the gap when its clocks skip midnight. */
  startOfDate(date: LocalDate): number
}

const zones = new Map<string, Zone>()

/** The zone named `name` (any case, as Intl accepts it), or 400 naming `tz`. */
export function resolveZone(name: string): Zone {
  const known = zones.get(name)
  if (known !== undefined) return known
  // Only names: a fixed offset (`+05:30`), which Intl also takes, is no zone of the database.
  if (!/^[A-Za-z]/.test(name)) throw validationError('tz', 'tz must be an IANA time zone such as Europe/Paris or UTC')
  let format: Intl.DateTimeFormat
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
  } catch {
    throw validationError('tz', 'tz must be an IANA time zone such as Europe/Paris or UTC')
  }
  const canonical = format.resolvedOptions().timeZone
  const zone = canonical === 'UTC' ? UTC : zoneOf(canonical, format)
  // Bounded: a client could name every zone there is, and its spellings, but no more.
  if (zones.size < 2000) zones.set(name, zone)
  return zone
}

const utcDate = (ms: number): LocalDate => {
  const d = new Date(ms)
  return { year: d.getUTCFullYear(), month: d.getUTCMonth(), day: d.getUTCDate() }
}

export const UTC: Zone = {
  name: 'UTC',
  offsetAt: () => 0,
  dateOf: utcDate,
  startOfDate: (date) => Date.UTC(date.year, date.month, date.day),
}

function zoneOf(name: string, format: Intl.DateTimeFormat): Zone {
  // Offsets change at most a few times a year, and only at whole seconds: an hour's is remembered.
  const offsets = new Map<number, number>()
  const exactOffset = (ms: number): number => {
    const parts: Record<string, number> = {}
    for (const p of format.formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = Number(p.value)
    const wall = Date.UTC(parts.year as number, (parts.month as number) - 1, parts.day, parts.hour, parts.minute, parts.second)
    return wall - (ms - (((ms % 1000) + 1000) % 1000))
  }
  const offsetAt = (ms: number): number => {
    const hour = Math.floor(ms / HOUR_MS) * HOUR_MS
    let hourly = offsets.get(hour)
    if (hourly === undefined) {
      const [start, end] = [exactOffset(hour), exactOffset(hour + HOUR_MS - 1)]
      // An hour in which the offset changes is not remembered: each instant of it is asked.
      if (start !== end) return exactOffset(ms)
      if (offsets.size > 100_000) offsets.clear()
      offsets.set(hour, (hourly = start))
    }
    return hourly
  }
  const wallOf = (ms: number) => ms + offsetAt(ms)
  return {
    name,
    offsetAt,
    dateOf: (ms) => utcDate(wallOf(ms)),
    startOfDate(date) {
      const midnight = Date.UTC(date.year, date.month, date.day)
      // The instants whose local time could be this midnight: one per offset in force around it.
      const candidates = [...new Set([offsetAt(midnight - DAY_MS), offsetAt(midnight), offsetAt(midnight + DAY_MS)])].map((o) => midnight - o)
      const exact = candidates.filter((t) => wallOf(t) === midnight)
      // Midnight twice (clocks set back to it): the day begins at the first.
      if (exact.length > 0) return Math.min(...exact)
      // No midnight (clocks jump over it): the day begins with the first instant on it, where the gap ends.
      let before = Math.min(...candidates) - DAY_MS
      let after = Math.max(...candidates) + DAY_MS
      while (after - before > 1000) {
        const middle = before + Math.floor((after - before) / 2000) * 1000
        if (wallOf(middle) >= midnight) after = middle
        else before = middle
      }
      return after
    },
  }
}

/** The first instant of the local date after the one that `ms` falls on. */
export const nextDayStart = (zone: Zone, ms: number): number => {
  const d = zone.dateOf(ms)
  return zone.startOfDate({ year: d.year, month: d.month, day: d.day + 1 })
}
