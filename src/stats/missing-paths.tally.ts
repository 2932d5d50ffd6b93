import { hourOf } from './classify.js'
import type { MissingPathRow } from './missing-paths.repository.js'

/** Distinct (domain, path) pairs counted per hour by one instance; visits of further paths count under OVERFLOW_PATH. */
export const MAX_PATHS_PER_HOUR = 10_000
/** A link's path is at most 129 characters (`/` and 128): a longer missing path is cut there. */
export const MAX_PATH_LENGTH = 129
/** Where the visits of paths beyond the hour's bound are counted, per domain; no path looks like it (a path starts with `/`). */
export const OVERFLOW_PATH = '(other)'
/** Rows kept for another attempt after failed writes; beyond it, the oldest failures are dropped. */
const MAX_PENDING = 4 * MAX_PATHS_PER_HOUR

const NOT_PRINTABLE = /[^\x21-\x7e]/
const EVERY_NOT_PRINTABLE = new RegExp(NOT_PRINTABLE.source, 'g')
const percent = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`

/**
 * The serving thread's count of human visits to missing paths, per domain, path and hour, until the
 * next write takes them (`take`). Memory is bounded whatever the visitors send: at most
 * MAX_PATHS_PER_HOUR distinct paths an hour (the rest under OVERFLOW_PATH of their domain), each cut to
 * MAX_PATH_LENGTH, and MAX_PENDING rows waiting after failed writes. Counting costs a string and two
 * Map lookups, on the not-found answer only.
 */
export function createMissingPathTally() {
  let pending = new Map<string, MissingPathRow>()
  let hour = 0
  let admitted = new Set<string>()
  let dropped = 0

  function add(row: MissingPathRow, key: string): void {
    const known = pending.get(key)
    if (known === undefined) pending.set(key, row)
    else {
      known.clicks += row.clicks
      if (row.last_at > known.last_at) known.last_at = row.last_at
    }
  }

  return {
    /** One visit to `path` (as looked up) on `domain` at `at`. */
    count(domain: string, path: string, at: number): void {
      const visitHour = hourOf(at)
      if (visitHour > hour) {
        hour = visitHour
        admitted = new Set()
      }
      // Node hands the request target over byte for byte: anything outside printable ASCII is written as its escape.
      let clean = NOT_PRINTABLE.test(path) ? path.replace(EVERY_NOT_PRINTABLE, percent) : path
      if (clean.length > MAX_PATH_LENGTH) clean = clean.slice(0, MAX_PATH_LENGTH)
      const place = `${domain}\n${clean}`
      if (!admitted.has(place)) {
        if (admitted.size < MAX_PATHS_PER_HOUR) admitted.add(place)
        else clean = OVERFLOW_PATH
      }
      add({ domain, path: clean, hour: visitHour, clicks: 1, last_at: at }, `${visitHour}\n${domain}\n${clean}`)
    },

    /** Everything counted since the last take, for a write. */
    take(): MissingPathRow[] {
      const rows = [...pending.values()]
      pending = new Map()
      return rows
    },

    /** Rows whose write failed, counted again for the next one (as far as MAX_PENDING allows: the rest are dropped). */
    putBack(rows: readonly MissingPathRow[]): void {
      for (const row of rows) {
        const key = `${row.hour}\n${row.domain}\n${row.path}`
        if (pending.size >= MAX_PENDING && !pending.has(key)) dropped += row.clicks
        else add({ ...row }, key)
      }
    },

    /** Visits dropped so far after failed writes. */
    get dropped(): number {
      return dropped
    },
    /** Rows waiting for the next write. */
    get size(): number {
      return pending.size
    },
  }
}
export type MissingPathTally = ReturnType<typeof createMissingPathTally>
