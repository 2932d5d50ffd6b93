import type { Transaction } from '../storage/transaction.js'
import { readFacets, type Facets } from './stats.dimensions.js'

/*
 * What a click writer remembers between its roll-ups, so that the next one reads less back: both
 * bounded, and forgotten all at once past their bound (each entry then costs one read or row again).
 */

/**
 * Visitor keys remembered as already in `link_daily_visitors`, so that a returning visitor costs no row:
 * at most this many, then forgotten all at once (they cost a row again, each once).
 */
const KNOWN_VISITORS_MAX = 250_000
/**
 * Hour breakdowns remembered as last written, up to this many characters of their JSON (kept as the
 * string, one byte a character), then forgotten all at once (each is read back once again): ~200
 * characters a link-hour, so 100,000 links visited in rotation fit (~30 MB with the map).
 */
const WRITTEN_FACETS_MAX_CHARS = 24_000_000

/** A visitor counted on a link and UTC day: a `link_daily_visitors` row. */
export interface DailyVisitor {
  link_id: string
  day: number
  visitor_key: string
}

/** Day → link id → visitor keys already in link_daily_visitors, as far as this writer saw them committed. */
export class KnownVisitors {
  readonly #days = new Map<number, Map<string, Set<string>>>()
  #size = 0

  /** The visitor keys of `linkId` known for `day`. */
  of(day: number, linkId: string): ReadonlySet<string> | undefined {
    return this.#days.get(day)?.get(linkId)
  }

  /** After a commit: these rows are in the table. */
  remember(rows: readonly DailyVisitor[]): void {
    if (this.#size + rows.length > KNOWN_VISITORS_MAX) {
      this.#days.clear()
      this.#size = 0
    }
    for (const r of rows) {
      let day = this.#days.get(r.day)
      if (day === undefined) this.#days.set(r.day, (day = new Map()))
      let keys = day.get(r.link_id)
      if (keys === undefined) day.set(r.link_id, (keys = new Set()))
      if (!keys.has(r.visitor_key)) {
        keys.add(r.visitor_key)
        this.#size++
      }
    }
  }

  /** Forgets the visitor sets of days that can no longer receive visits (before `before`). */
  forgetBefore(before: number): void {
    for (const [day, links] of this.#days) {
      if (day >= before) continue
      for (const keys of links.values()) this.#size -= keys.size
      this.#days.delete(day)
    }
  }
}

/** Hour breakdowns a roll-up wrote: per link and hour, their JSON as written. */
export type WrittenHourFacets = { link_id: string; period_start: number; json: string }[]

/**
 * Each link's hour breakdowns (facets row) as this writer last committed them, so that the next roll-up
 * adds to them without reading the row back: under load every roll-up touches the same link-hours
 * again. Valid while no other writer rolled up in between, which the roll-up count in
 * facets_compaction tells (other instances on PostgreSQL, a second process on one SQLite file): any
 * other code that writes `link_click_rollups.facets` must add one to that count too.
 */
export class WrittenFacets {
  /**
   * Link id → its latest hour written, with that hour's counts as JSON: parsing ~200 characters again
   * costs less than holding the objects (a few times the memory, so a quarter of the links fitted: with
   * 100,000 links in rotation every roll-up read every row back).
   */
  readonly #rows = new Map<string, { period: number; json: string }>()
  #chars = 0
  /** The roll-up count after this writer's last committed roll-up. */
  #generation: number | undefined
  /** An attempt began and has not been remembered: its counts may have been added to in memory only. */
  #attempting = false

  /**
   * Inside a roll-up's transaction, under the roll-up lock: counts it, and forgets every row when
   * another writer's roll-up came in between, or when an earlier attempt never committed (a failed
   * roll-up, or an attempt that inTransaction runs again after a conflict: it added to these very
   * counts in memory). Returns the new count, for `remember`.
   */
  async begin(trx: Transaction): Promise<number> {
    if (this.#attempting) this.clear()
    this.#attempting = true
    const row = await trx
      .updateTable('facets_compaction')
      .set((eb) => ({ rollups: eb('rollups', '+', 1) }))
      .where('id', '=', 1)
      .returning('rollups')
      .executeTakeFirstOrThrow()
    const generation = Number(row.rollups)
    if (this.#generation === undefined || generation !== this.#generation + 1) this.clear()
    return generation
  }

  /** The counts of the link's hour row as last committed, if remembered: a new object each time, the caller's to add to. */
  get(linkId: string, period: number): Facets | undefined {
    const row = this.#rows.get(linkId)
    return row?.period === period ? readFacets(row.json) : undefined
  }

  /** After the commit of the roll-up numbered `generation`: the rows it wrote. */
  remember(generation: number, rows: WrittenHourFacets): void {
    this.#generation = generation
    this.#attempting = false
    for (const r of rows) {
      const before = this.#rows.get(r.link_id)
      this.#chars += r.json.length - (before?.json.length ?? 0)
      // Changed in place: an entry per link and roll-up would live until the next one, long enough to be promoted.
      if (before === undefined) {
        this.#rows.set(r.link_id, { period: r.period_start, json: r.json })
        continue
      }
      before.period = r.period_start
      before.json = r.json
    }
    if (this.#chars > WRITTEN_FACETS_MAX_CHARS) this.clear()
  }

  /** Forgets every row (then read back once each). */
  clear(): void {
    this.#rows.clear()
    this.#chars = 0
    this.#generation = undefined
  }
}
