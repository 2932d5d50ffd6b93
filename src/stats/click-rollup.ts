import type { Insertable } from 'kysely'
import { newId } from '../shared/ids.js'
import { DAY_MS } from '../shared/time.js'
import { dayOf, hourOf } from './classify.js'
import type { Db } from '../storage/database.js'
import type { DialectAdapter } from '../storage/dialect.js'
import { repeatedStatement } from '../storage/repeated-statement.js'
import { inTransaction, type Transaction } from '../storage/transaction.js'
import type { ClickBlocksTable, LinkClickFacetsTable, LinkClickRollupsTable, LinkDailyVisitorsTable } from './stats.table.js'
import { chunks } from '../shared/chunks.js'
import { encodeBlock, ProfileTable, profilesOf, BLOCK_FIELDS, VISIT_FIELDS, type Profile, type VisitColumns } from './visit-columns.js'

/**
 * The breakdown dimensions, each with the label of a missing value. Breakdowns count human clicks only.
 */
export const DIMENSIONS = {
  referrer: { missing: 'direct' },
  browser: { missing: 'unknown' },
  os: { missing: 'unknown' },
  device: { missing: 'unknown' },
  country: { missing: 'unknown' },
} as const
export type Dimension = keyof typeof DIMENSIONS
const DIMENSION_LIST = Object.entries(DIMENSIONS) as [Dimension, (typeof DIMENSIONS)[Dimension]][]

/** Human clicks per dimension and value: a facets row's `counts`. */
export type Facets = Partial<Record<Dimension, Record<string, number>>>

// Rows per INSERT statement (at most 8 values each): far below both databases' bound-parameter limits.
const CHUNK = 1000
/** Click blocks per INSERT: their data is the visits, up to a few hundred kB each. */
const BLOCK_CHUNK = 200
/** The advisory lock key that serialises roll-ups across instances (PostgreSQL). */
const ROLLUP_LOCK = 0x6c6e6b636c6b /* "lnkclk" */
/**
 * Visitor keys remembered as already in `link_daily_visitors`, so that a returning visitor costs no row:
 * at most this many (~20 MB), then forgotten all at once (they cost a row again, each once).
 */
const KNOWN_VISITORS_MAX = 250_000
/**
 * Hour breakdowns remembered as last written, up to this many characters of their JSON (objects take a
 * few times that: tens of MB at most), then forgotten all at once (each is read back once again).
 */
const WRITTEN_FACETS_MAX_CHARS = 4_000_000

/** What one roll-up adds for one link and hour: counters of the visits it counts, and the list of those it puts in blocks. */
interface HourTally {
  total: number
  human: number
  bot: number
  qr: number
  uniques: number
  lastHuman: number | null
  /** Human visits per profile (a number of the roll-up's ProfileTable): the breakdowns, once expanded. */
  profiles: Map<number, number>
  /** The hour's breakdowns as they will be written: what the table holds, plus `profiles` (hourFacets). */
  facets: Facets | undefined
  /** The hour's visits for its click block (the export): how many, the first and last of their list in the roll-up's VisitList, their times. */
  listed: number
  first: number
  last: number
  start: number
  end: number
  ordered: boolean
}

/** Everything one roll-up adds for one link. */
interface LinkTally {
  hours: Map<number, HourTally>
  /** Per UTC day, the human visitors seen and the time of their first visit. */
  visitors: Map<number, Map<string, number>>
  /** The hour of the link's last visit and its tally: visits come in time order, mostly. */
  hour: number
  current: HourTally | undefined
  /** The last human visit's visitor, day and time: a visitor's next visits need no lookup. */
  lastVisitor: string | undefined
  lastDay: number
  lastAt: number
}

/** Day → link id → visitor keys already in link_daily_visitors (as far as this writer saw them committed). */
type KnownVisitors = Map<number, Map<string, Set<string>>>

/**
 * Every visit of a roll-up, numbered in the order tallied: its time, its profile, and the next visit of
 * the same link and hour (-1 for none), so that each hour's visits form a list. Three typed arrays for the
 * whole roll-up rather than an array per link and hour grown visit by visit, which cost more in garbage
 * collection than the tally itself.
 */
interface VisitList {
  at: Float64Array
  profile: Int32Array
  next: Int32Array
}

/** What a roll-up sums: per link, the profiles its tallies refer to, and the visits. */
export interface Tally {
  links: Map<string, LinkTally>
  profiles: ProfileTable
  visits: VisitList
}

/** A journal batch as a roll-up takes it: to count (not counted before), to put in click blocks, or both. */
export interface TalliedBatch {
  batch: VisitColumns
  count: boolean
  block: boolean
}

/**
 * Sums batches of classified visits per link, hour and profile, in memory: the database then receives
 * one row per distinct key, not one per visit, so a flood on one link costs a handful of rows. The
 * visits of batches to put in blocks are listed per link and hour, in the same pass.
 */
export function tally(batches: readonly TalliedBatch[]): Tally {
  const links = new Map<string, LinkTally>()
  const table = new ProfileTable()
  const size = batches.reduce((sum, b) => sum + (b.block ? b.batch.visits.length / VISIT_FIELDS : 0), 0)
  const visits: VisitList = { at: new Float64Array(size), profile: new Int32Array(size), next: new Int32Array(size) }
  let n = 0
  for (const { batch, count, block } of batches) {
    const { base, strings, visits: v } = batch
    // The batch's own profile numbers, as the roll-up's.
    const ids = profilesOf(batch).map((p) => table.id(p))
    // Each link's tally by its number in the batch: one lookup per link and batch, not per visit.
    const linksOf: (LinkTally | undefined)[] = []
    for (let o = 0; o < v.length; o += VISIT_FIELDS) {
      let link = linksOf[v[o] as number]
      if (link === undefined) {
        const linkId = strings[v[o] as number] as string
        link = links.get(linkId)
        if (link === undefined) {
          link = { hours: new Map(), visitors: new Map(), hour: Number.NaN, current: undefined, lastVisitor: undefined, lastDay: Number.NaN, lastAt: 0 }
          links.set(linkId, link)
        }
        linksOf[v[o] as number] = link
      }
      const at = base + (v[o + 1] as number)
      const id = ids[v[o + 2] as number] as number
      const profile = table.list[id] as Profile
      const hour = hourOf(at)
      if (hour !== link.hour) {
        link.hour = hour
        link.current = link.hours.get(hour)
        if (link.current === undefined) {
          link.current = {
            total: 0,
            human: 0,
            bot: 0,
            qr: 0,
            uniques: 0,
            lastHuman: null,
            profiles: new Map(),
            facets: undefined,
            listed: 0,
            first: -1,
            last: -1,
            start: Infinity,
            end: -Infinity,
            ordered: true,
          }
          link.hours.set(hour, link.current)
        }
      }
      const tally = link.current as HourTally
      if (block) {
        if (at < tally.end) tally.ordered = false
        tally.start = Math.min(tally.start, at)
        tally.end = Math.max(tally.end, at)
        tally.listed++
        visits.at[n] = at
        visits.profile[n] = id
        visits.next[n] = -1
        if (tally.last === -1) tally.first = n
        else visits.next[tally.last] = n
        tally.last = n++
      }
      if (!count) continue
      tally.total++
      if (profile.bot) {
        tally.bot++
        continue
      }
      tally.human++
      if (profile.qr) tally.qr++
      if (tally.lastHuman === null || at > tally.lastHuman) tally.lastHuman = at
      tally.profiles.set(id, (tally.profiles.get(id) ?? 0) + 1)
      const day = dayOf(at)
      const visitor = strings[v[o + 3] as number] as string
      // The same visitor again, later the same day: their first visit is already the earlier one.
      if (visitor !== link.lastVisitor || day !== link.lastDay || at < link.lastAt) {
        let seen = link.visitors.get(day)
        if (seen === undefined) link.visitors.set(day, (seen = new Map()))
        const first = seen.get(visitor)
        if (first === undefined || at < first) seen.set(visitor, at)
        link.lastVisitor = visitor
        link.lastDay = day
      }
      link.lastAt = at
    }
  }
  return { links, profiles: table, visits }
}

/** An hour's visits as a click block, in time order (batches from several writers can interleave: a stale journal taken over). */
function blockOf(hour: HourTally, visits: VisitList, profiles: readonly Profile[]): string {
  let pairs: number[] = new Array<number>(hour.listed * BLOCK_FIELDS)
  for (let i = hour.first, o = 0; i !== -1; i = visits.next[i] as number, o += BLOCK_FIELDS) {
    pairs[o] = visits.at[i] as number
    pairs[o + 1] = visits.profile[i] as number
  }
  if (!hour.ordered) {
    const order = Array.from({ length: pairs.length / BLOCK_FIELDS }, (_, i) => i * BLOCK_FIELDS).sort((a, b) => (pairs[a] as number) - (pairs[b] as number))
    pairs = order.flatMap((o) => [pairs[o] as number, pairs[o + 1] as number])
  }
  return JSON.stringify(encodeBlock(pairs, profiles))
}

/** An hour's human visits per dimension and value. */
const facetsOf = (hour: HourTally, profiles: readonly Profile[]): Facets => addProfiles({}, hour, profiles)

/** Adds an hour's human visits to `facets`, per dimension and value, without building counts of their own first. */
function addProfiles(facets: Facets, hour: HourTally, profiles: readonly Profile[]): Facets {
  for (const [id, n] of hour.profiles) {
    const profile = profiles[id] as Profile
    for (const [dimension, { missing }] of DIMENSION_LIST) {
      const counts = (facets[dimension] ??= {})
      const value = profile[dimension] ?? missing
      counts[value] = (counts[value] ?? 0) + n
    }
  }
  return facets
}

/** Adds `more` into `into` (both facets of one period). */
export function addFacets(into: Facets, more: Facets): Facets {
  for (const [dimension, values] of Object.entries(more) as [Dimension, Record<string, number>][]) {
    const counts = (into[dimension] ??= {})
    for (const [value, n] of Object.entries(values)) counts[value] = (counts[value] ?? 0) + n
  }
  return into
}

/**
 * Each link's hour breakdowns (facets row) as this writer last committed them, so that the next roll-up
 * adds to them without reading the row back: under load every roll-up touches the same link-hours
 * again. Valid while no other writer rolled up in between, which the roll-up count in
 * facets_compaction tells (other instances on PostgreSQL, a second process on one SQLite file): any
 * other code that writes `link_click_rollups.facets` must add one to that count too.
 */
class WrittenFacets {
  /** Link id → its latest hour written, with that hour's counts and their JSON's length. */
  readonly #rows = new Map<string, { period: number; facets: Facets; chars: number }>()
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

  /** The counts of the link's hour row as last committed, if remembered; the caller may add to them (an attempt not remembered makes the next `begin` forget). */
  get(linkId: string, period: number): Facets | undefined {
    const row = this.#rows.get(linkId)
    return row?.period === period ? row.facets : undefined
  }

  /** After the commit of the roll-up numbered `generation`: the rows it wrote. */
  remember(generation: number, rows: readonly { link_id: string; period_start: number; facets: Facets; chars: number }[]): void {
    this.#generation = generation
    this.#attempting = false
    for (const r of rows) {
      const before = this.#rows.get(r.link_id)
      this.#chars += r.chars - (before?.chars ?? 0)
      this.#rows.set(r.link_id, { period: r.period_start, facets: r.facets, chars: r.chars })
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

/**
 * The click writer's side of the journal: appends batches, and rolls the journal up into the
 * statistics tables. One per writer thread; it remembers which visitors are already counted.
 */
export function createRollup(db: Db, dialect: DialectAdapter, onAppended?: (trx: Transaction, batch: VisitColumns, now: number) => Promise<unknown>) {
  /** Day → link id → visitor keys known to be in link_daily_visitors. */
  const known: KnownVisitors = new Map()
  let knownSize = 0
  /** Every day before this one has its day rows (compactDays), as far as this writer knows. */
  let compactedBefore = -Infinity
  const statements = rollupStatements()
  const written = new WrittenFacets()

  function remember(rows: readonly { link_id: string; day: number; visitor_key: string }[]): void {
    if (knownSize + rows.length > KNOWN_VISITORS_MAX) {
      known.clear()
      knownSize = 0
    }
    for (const r of rows) {
      let day = known.get(r.day)
      if (day === undefined) known.set(r.day, (day = new Map()))
      let keys = day.get(r.link_id)
      if (keys === undefined) day.set(r.link_id, (keys = new Set()))
      if (!keys.has(r.visitor_key)) {
        keys.add(r.visitor_key)
        knownSize++
      }
    }
  }

  /** Forgets the visitor sets of days that can no longer receive visits (before yesterday). */
  function forgetBefore(before: number): void {
    for (const [day, links] of known) {
      if (day >= before) continue
      for (const keys of links.values()) knownSize -= keys.size
      known.delete(day)
    }
  }

  return {
    /** Appends one batch to the journal (one row), with whatever `onAppended` records beside it; resolves to its id. */
    async append(instance: string, batch: VisitColumns, now: number): Promise<string> {
      const id = newId('clj')
      await inTransaction(db, async (trx) => {
        await trx
          .insertInto('click_journal')
          .values({ id, instance, created_at: now, visits: batch.visits.length / VISIT_FIELDS, data: JSON.stringify(batch) })
          .execute()
        await onAppended?.(trx, batch, now)
      })
      return id
    },

    /**
     * Rolls up, in one transaction, the journal rows of `instance` (their batches are in `own`, so they
     * are not parsed again) and those of other writers older than `staleBefore` (a writer that stopped
     * without rolling up). Rows not counted yet (after their writer's mark) go into the daily visitors,
     * the hourly rollups and the breakdowns. With `blocks`, every row taken also goes into click blocks
     * (the export) and is deleted; without, this writer's rows stay, counted, under its mark, for a
     * later roll-up with blocks: a link's visits of several roll-ups then make one block, not one each
     * (per block, an entry at a random place of the (link_id, start_at) index). Another writer's rows
     * are always finished at once. Visits of links deleted since are left out. Roll-ups of all
     * instances take turns (an advisory lock on PostgreSQL), so that uniques are exact and
     * read-modify-writes of facets rows never race. `staleOnly`: other writers' stale rows only, this
     * writer's left as they are (an idle instance adopting a crashed one's journal). Returns how many
     * visits were counted.
     */
    async rollUp(
      instance: string,
      own: ReadonlyMap<string, VisitColumns>,
      staleBefore: number,
      now: number,
      blocks: boolean,
      staleOnly = false,
    ): Promise<number> {
      const remembered: { link_id: string; day: number; visitor_key: string }[] = []
      let hourRows: WrittenHourFacets = []
      let generation: number | undefined
      const visits = await inTransaction(db, async (trx) => {
        remembered.length = 0
        generation = undefined
        await dialect.lockForTransaction(trx, ROLLUP_LOCK)
        const rows = await trx
          .selectFrom('click_journal')
          .select(['id', 'instance'])
          .where((eb) =>
            staleOnly
              ? eb.and([eb('instance', '<>', instance), eb('created_at', '<', staleBefore)])
              : eb.or([eb('instance', '=', instance), eb('created_at', '<', staleBefore)]),
          )
          .orderBy('id')
          .execute()
        if (rows.length === 0) return 0
        const writers = [...new Set(rows.map((r) => r.instance))]
        const marks = new Map<string, string>()
        for (const r of await trx.selectFrom('click_journal_marks').selectAll().where('instance', 'in', writers).execute())
          marks.set(r.instance, r.rolled_through)
        // Count the rows after their writer's mark; put in blocks every row taken with `blocks`, and another writer's always.
        const taken = rows
          .map((row) => ({ row, count: row.id > (marks.get(row.instance) ?? ''), block: blocks || row.instance !== instance }))
          .filter((t) => t.count || t.block)
        if (taken.length === 0) return 0

        const batches = await batchesOf(
          trx,
          instance,
          own,
          taken.map((t) => t.row),
        )
        const { links, profiles, visits: list } = tally(taken.map((t) => ({ batch: batches.get(t.row.id) as VisitColumns, count: t.count, block: t.block })))
        await dropDeletedLinks(trx, links)
        const uncounted = taken.filter((t) => t.count)
        if (uncounted.length > 0) {
          generation = await written.begin(trx)
          await writeVisitors(trx, statements, links, known, remembered)
          await hourFacets(trx, links, profiles.list, written)
          hourRows = await writeRollups(trx, statements, links)
          await writeDayFacets(trx, statements, links, profiles.list, dayOf(now))
        }
        const finished = taken.filter((t) => t.block).map((t) => t.row.id)
        if (finished.length > 0) {
          await writeBlocks(trx, statements, links, list, profiles.list)
          for (const ids of chunks(finished, CHUNK)) await trx.deleteFrom('click_journal').where('id', 'in', ids).execute()
        }
        if (!blocks) {
          // This writer's rows left in the journal, all counted now: the mark moves to the last of them.
          const through = rows.findLast((r) => r.instance === instance)?.id
          if (through !== undefined) {
            await trx
              .insertInto('click_journal_marks')
              .values({ instance, rolled_through: through })
              .onConflict((oc) => oc.column('instance').doUpdateSet({ rolled_through: through }))
              .execute()
          }
        }
        // A writer whose rows are all gone needs no mark (this one's stays while its rows wait for their blocks).
        const done = blocks ? writers : writers.filter((w) => w !== instance)
        if (done.length > 0) {
          await trx
            .deleteFrom('click_journal_marks')
            .where('instance', 'in', done)
            .where(({ not, exists, selectFrom }) =>
              not(exists(selectFrom('click_journal').select('click_journal.id').whereRef('click_journal.instance', '=', 'click_journal_marks.instance'))),
            )
            .execute()
        }
        return uncounted.reduce((sum, t) => sum + (batches.get(t.row.id) as VisitColumns).visits.length / VISIT_FIELDS, 0)
      })
      // Only what committed is known to be in the tables.
      remember(remembered)
      if (generation !== undefined) written.remember(generation, hourRows)
      forgetBefore(dayOf(now) - DAY_MS)
      return visits
    },

    /** Whether the journal holds rows of another writer older than `staleBefore` (one that stopped without rolling them up). */
    async hasStale(instance: string, staleBefore: number): Promise<boolean> {
      const row = await db
        .selectFrom('click_journal')
        .select('id')
        .where('instance', '<>', instance)
        .where('created_at', '<', staleBefore)
        .limit(1)
        .executeTakeFirst()
      return row !== undefined
    },

    /**
     * Builds the day rows of the days that are over since the last compaction, from their hour rows
     * (a roll-up adds to a day's rows only once the day is over): links in chunks, each chunk in its
     * own short transaction under the roll-up lock, so that appends and other instances' roll-ups go
     * on between them; then the watermark moves to today. A day built twice (a crash before the
     * watermark moved, or two instances at once) comes out the same: hour rows are complete.
     */
    async compactDays(now: number): Promise<void> {
      const today = dayOf(now)
      if (compactedBefore >= today) return
      const from = await facetsCompactedBefore(db)
      if (from < today) {
        for (let after = ''; ;) {
          const ids = (await db.selectFrom('links').select('id').where('id', '>', after).orderBy('id').limit(CHUNK).execute()).map((r) => r.id)
          if (ids.length === 0) break
          await inTransaction(db, async (trx) => {
            await dialect.lockForTransaction(trx, ROLLUP_LOCK)
            await compactLinks(trx, statements, ids, from, today)
          })
          after = ids.at(-1) as string
        }
        await db.updateTable('facets_compaction').set({ days_before: today }).where('id', '=', 1).where('days_before', '<', today).execute()
      }
      compactedBefore = today
    },
  }
}
export type Rollup = ReturnType<typeof createRollup>

/** The compaction's watermark: every UTC day before it has its day rows; later days are read from hour rows. */
export async function facetsCompactedBefore(db: Db): Promise<number> {
  const row = await db.selectFrom('facets_compaction').select('days_before').where('id', '=', 1).executeTakeFirst()
  return Number(row?.days_before ?? 0)
}

/** The roll-up's multi-row writes, each compiled once for full chunks (one set per writer: the SQL is its database's). */
function rollupStatements() {
  return {
    visitors: repeatedStatement<LinkDailyVisitorsTable, LinkDailyVisitorsTable>(['link_id', 'day', 'visitor_key'], CHUNK, (trx, rows) =>
      trx
        .insertInto('link_daily_visitors')
        .values(rows)
        .onConflict((oc) => oc.columns(['link_id', 'day', 'visitor_key']).doNothing())
        .returning(['link_id', 'day', 'visitor_key']),
    ),
    rollups: repeatedStatement<LinkClickRollupsTable>(
      ['link_id', 'hour', 'total_clicks', 'human_clicks', 'bot_clicks', 'qr_scans', 'unique_visitors', 'last_human_click_at', 'facets'],
      CHUNK,
      (trx, rows) =>
        trx
          .insertInto('link_click_rollups')
          .values(rows)
          .onConflict((oc) =>
            oc.columns(['link_id', 'hour']).doUpdateSet((eb) => ({
              total_clicks: eb('link_click_rollups.total_clicks', '+', eb.ref('excluded.total_clicks')),
              human_clicks: eb('link_click_rollups.human_clicks', '+', eb.ref('excluded.human_clicks')),
              bot_clicks: eb('link_click_rollups.bot_clicks', '+', eb.ref('excluded.bot_clicks')),
              qr_scans: eb('link_click_rollups.qr_scans', '+', eb.ref('excluded.qr_scans')),
              unique_visitors: eb('link_click_rollups.unique_visitors', '+', eb.ref('excluded.unique_visitors')),
              // max() of two values is spelled differently by each dialect; CASE is not.
              last_human_click_at: eb
                .case()
                .when('excluded.last_human_click_at', '>', eb.fn.coalesce('link_click_rollups.last_human_click_at', eb.lit(0)))
                .then(eb.ref('excluded.last_human_click_at'))
                .else(eb.ref('link_click_rollups.last_human_click_at'))
                .end(),
              // The whole hour's breakdowns (hourFacets), or none when the roll-up brought no human visit.
              facets: eb.fn.coalesce('excluded.facets', 'link_click_rollups.facets'),
            })),
          ),
    ),
    facets: repeatedStatement<LinkClickFacetsTable>(['link_id', 'granularity', 'period_start', 'counts'], CHUNK, (trx, rows) =>
      trx
        .insertInto('link_click_facets')
        .values(rows)
        .onConflict((oc) => oc.columns(['link_id', 'granularity', 'period_start']).doUpdateSet((eb) => ({ counts: eb.ref('excluded.counts') }))),
    ),
    blocks: repeatedStatement<Insertable<ClickBlocksTable>>(['link_id', 'start_at', 'end_at', 'clicks', 'data'], BLOCK_CHUNK, (trx, rows) =>
      trx.insertInto('click_blocks').values(rows),
    ),
  }
}
type Statements = ReturnType<typeof rollupStatements>

/** The batches of journal rows by id: this writer's from `own`, the others (and any `own` lacks) parsed from the journal. */
async function batchesOf(
  trx: Transaction,
  instance: string,
  own: ReadonlyMap<string, VisitColumns>,
  rows: readonly { id: string; instance: string }[],
): Promise<Map<string, VisitColumns>> {
  const batches = new Map<string, VisitColumns>()
  const foreign: string[] = []
  for (const r of rows) {
    const batch = r.instance === instance ? own.get(r.id) : undefined
    if (batch === undefined) foreign.push(r.id)
    else batches.set(r.id, batch)
  }
  for (const ids of chunks(foreign, 100)) {
    for (const r of await trx.selectFrom('click_journal').select(['id', 'data']).where('id', 'in', ids).execute())
      batches.set(r.id, JSON.parse(r.data) as VisitColumns)
  }
  return batches
}

/** A link deleted since its visits: they are dropped, not a reason to fail the roll-up. */
async function dropDeletedLinks(trx: Transaction, links: Map<string, LinkTally>): Promise<void> {
  const live = new Set<string>()
  for (const ids of chunks([...links.keys()], CHUNK)) {
    for (const r of await trx.selectFrom('links').select('id').where('id', 'in', ids).where('deleted_at', 'is', null).execute()) live.add(r.id)
  }
  for (const id of links.keys()) if (!live.has(id)) links.delete(id)
}

/**
 * Unique visitors: a human visitor counts once per link and UTC day, in the hour of their first visit.
 * Keys this writer already saw committed cost nothing; the others are inserted, and those the
 * database did not have yet (RETURNING lists only the inserted rows) are the new uniques.
 */
async function writeVisitors(
  trx: Transaction,
  statements: Statements,
  links: Map<string, LinkTally>,
  known: KnownVisitors,
  remembered: { link_id: string; day: number; visitor_key: string }[],
): Promise<void> {
  const candidates: { link_id: string; day: number; visitor_key: string }[] = []
  for (const [linkId, link] of links) {
    for (const [day, seen] of link.visitors) {
      const already = known.get(day)?.get(linkId)
      for (const visitor of seen.keys()) if (!already?.has(visitor)) candidates.push({ link_id: linkId, day, visitor_key: visitor })
    }
  }
  for (const rows of chunks(candidates, CHUNK)) {
    for (const r of await statements.visitors(trx, rows)) {
      // The tally holds the time of the visitor's first visit that day: their hour counts them.
      const link = links.get(r.link_id) as LinkTally
      const at = (link.visitors.get(Number(r.day)) as Map<string, number>).get(r.visitor_key) as number
      const hour = link.hours.get(hourOf(at)) as HourTally
      hour.uniques++
    }
  }
  for (const c of candidates) remembered.push(c)
}

/** Hour breakdowns a roll-up wrote: per link and hour, the counts and the length of their JSON. */
type WrittenHourFacets = { link_id: string; period_start: number; facets: Facets; chars: number }[]

/**
 * Each hour's breakdowns as they will be written (`facets` of its tally): the counts its rollup row
 * holds, remembered (`written`) or read back, plus the roll-up's human visits. Under the roll-up lock,
 * so no other writer changes a row meanwhile.
 */
async function hourFacets(trx: Transaction, links: Map<string, LinkTally>, profiles: readonly Profile[], written: WrittenFacets): Promise<void> {
  /** Hours whose counts are not remembered: read back first. */
  const unknown = new Set<HourTally>()
  const ids = new Set<string>()
  const hours = new Set<number>()
  for (const [linkId, link] of links) {
    for (const [hour, t] of link.hours) {
      if (t.profiles.size === 0) continue
      t.facets = written.get(linkId, hour)
      if (t.facets !== undefined) continue
      t.facets = {}
      unknown.add(t)
      ids.add(linkId)
      hours.add(hour)
    }
  }
  const hourList = [...hours]
  for (const chunk of chunks([...ids], CHUNK)) {
    const rows = await trx
      .selectFrom('link_click_rollups')
      .select(['link_id', 'hour', 'facets'])
      .where('link_id', 'in', chunk)
      .where('hour', 'in', hourList)
      .where('facets', 'is not', null)
      .execute()
    for (const r of rows) {
      const t = links.get(r.link_id)?.hours.get(Number(r.hour))
      // Only hours asked for: the query's lists also match remembered hours of the same links.
      if (t !== undefined && unknown.has(t)) t.facets = JSON.parse(r.facets as string) as Facets
    }
  }
  for (const link of links.values()) for (const t of link.hours.values()) if (t.facets !== undefined) addProfiles(t.facets, t, profiles)
}

/** Adds the counters and the breakdowns (hourFacets) to the hourly rollups, creating the rows that are missing. Returns the breakdowns written. */
async function writeRollups(trx: Transaction, statements: Statements, links: Map<string, LinkTally>): Promise<WrittenHourFacets> {
  const written: WrittenHourFacets = []
  const rows = [...links].flatMap(([linkId, link]) =>
    [...link.hours].flatMap(([hour, t]) => {
      // An hour of visits counted before, only put in blocks by this roll-up.
      if (t.total === 0) return []
      const facets = t.facets === undefined ? null : JSON.stringify(t.facets)
      if (t.facets !== undefined) written.push({ link_id: linkId, period_start: hour, facets: t.facets, chars: (facets as string).length })
      return {
        link_id: linkId,
        hour,
        total_clicks: t.total,
        human_clicks: t.human,
        bot_clicks: t.bot,
        qr_scans: t.qr,
        unique_visitors: t.uniques,
        last_human_click_at: t.lastHuman,
        facets,
      }
    }),
  )
  for (const chunk of chunks(rows, CHUNK)) await statements.rollups(trx, chunk)
  return written
}

/**
 * Day breakdowns of days before `today` (today's are built once it is over: compactDays), for late
 * visits: each day row is read, the roll-up's counts added in memory and the row written back (under
 * the roll-up lock, so no other writer changes it meanwhile).
 */
async function writeDayFacets(
  trx: Transaction,
  statements: Statements,
  links: Map<string, LinkTally>,
  profiles: readonly Profile[],
  today: number,
): Promise<void> {
  const adds: PeriodSums = new Map()
  for (const [linkId, link] of links) {
    for (const [hour, t] of link.hours) if (t.profiles.size > 0 && hour < today) addToPeriod(adds, linkId, dayOf(hour), facetsOf(t, profiles))
  }
  const periods = [...new Set([...adds.values()].map((a) => a.period_start))]
  for (const ids of chunks([...new Set([...adds.values()].map((a) => a.link_id))], CHUNK)) {
    const existing = await trx
      .selectFrom('link_click_facets')
      .select(['link_id', 'period_start', 'counts'])
      .where('link_id', 'in', ids)
      .where('granularity', '=', 'day')
      .where('period_start', 'in', periods)
      .execute()
    for (const r of existing) {
      const add = adds.get(`${r.link_id} ${Number(r.period_start)}`)
      if (add !== undefined) add.facets = addFacets(JSON.parse(r.counts) as Facets, add.facets)
    }
  }
  await putDayFacets(trx, statements, [...adds.values()])
}

/** Facets summed per link and period (hour or day), keyed `${link_id} ${period_start}`. */
type PeriodSums = Map<string, { link_id: string; period_start: number; facets: Facets }>

function addToPeriod(sums: PeriodSums, linkId: string, period: number, facets: Facets): void {
  const key = `${linkId} ${period}`
  const sum = sums.get(key)
  if (sum === undefined) sums.set(key, { link_id: linkId, period_start: period, facets })
  else addFacets(sum.facets, facets)
}

/** Writes day rows as they are given (a row already there is replaced). */
async function putDayFacets(
  trx: Transaction,
  statements: Statements,
  rows: readonly { link_id: string; period_start: number; facets: Facets }[],
): Promise<void> {
  for (const chunk of chunks(rows, CHUNK)) {
    await statements.facets(
      trx,
      chunk.map((a) => ({ link_id: a.link_id, granularity: 'day' as const, period_start: a.period_start, counts: JSON.stringify(a.facets) })),
    )
  }
}

/**
 * The hour breakdowns of `linkIds`, hours in [from, to): the rollup rows' and the hour rows that an
 * instance of a release before migration 0015 writes to link_click_facets during a rolling upgrade
 * (LinkClickFacetsTable), which add to them.
 */
export async function hourBreakdowns(
  db: Db,
  linkIds: readonly string[],
  from: number,
  to: number,
): Promise<{ link_id: string; period_start: number; counts: string }[]> {
  const hours = await db
    .selectFrom('link_click_rollups')
    .select(['link_id', 'hour as period_start', 'facets as counts'])
    .where('link_id', 'in', linkIds)
    .where('hour', '>=', from)
    .where('hour', '<', to)
    .where('facets', 'is not', null)
    .execute()
  const older = await db
    .selectFrom('link_click_facets')
    .select(['link_id', 'period_start', 'counts'])
    .where('link_id', 'in', linkIds)
    .where('granularity', '=', 'hour')
    .where('period_start', '>=', from)
    .where('period_start', '<', to)
    .execute()
  return [...hours, ...older].map((r) => ({ link_id: r.link_id, period_start: Number(r.period_start), counts: r.counts as string }))
}

/** Builds again the day rows of `linkIds` for the days in [from, to): each the sum of its hours' breakdowns. */
async function compactLinks(trx: Transaction, statements: Statements, linkIds: readonly string[], from: number, to: number): Promise<void> {
  const days: PeriodSums = new Map()
  for (const r of await hourBreakdowns(trx, linkIds, from, to)) addToPeriod(days, r.link_id, dayOf(r.period_start), JSON.parse(r.counts) as Facets)
  await putDayFacets(trx, statements, [...days.values()])
}

/** Each link's visits of the roll-up as one click block per hour. */
async function writeBlocks(
  trx: Transaction,
  statements: Statements,
  links: Map<string, LinkTally>,
  visits: VisitList,
  profiles: readonly Profile[],
): Promise<void> {
  const rows = [...links].flatMap(([linkId, link]) =>
    [...link.hours.values()]
      .filter((hour) => hour.listed > 0)
      .map((hour) => ({
        link_id: linkId,
        start_at: hour.start,
        end_at: hour.end,
        clicks: hour.listed,
        data: blockOf(hour, visits, profiles),
      })),
  )
  for (const chunk of chunks(rows, BLOCK_CHUNK)) await statements.blocks(trx, chunk)
}
