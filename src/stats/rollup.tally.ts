import { dayOf, hourOf } from './classify.js'
import { addProfile, type Facets, type Profile } from './stats.dimensions.js'
import { BLOCK_VISIT, encodeBlock, JOURNAL_VISIT, ProfileTable, profilesOf, type VisitColumns } from './visit-columns.js'

const { link: LINK, offset: OFFSET, profile: PROFILE, visitor: VISITOR } = JOURNAL_VISIT.index
const { offset: BLOCK_AT, profile: BLOCK_PROFILE } = BLOCK_VISIT.index
const VISIT_FIELDS = JOURNAL_VISIT.width
const BLOCK_FIELDS = BLOCK_VISIT.width

/*
 * A roll-up's visits counted in memory, before any SQL: pure, so that what a roll-up adds can be
 * checked without a database (rollup.tally.test.ts). The roll-up (click-rollup.ts) then writes the
 * tally (rollup.repository.ts).
 */

/** What one roll-up adds for one link and hour: counters of the visits it counts, and the list of those it puts in blocks. */
export interface HourTally {
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
  /** The hour's human clicks in its rollup row after the roll-up's increment (writeRollups): its workspace's busiest links. */
  humanAfter: number
  /** The hour's visits for its click block (the export): how many, the first and last of their list in the roll-up's VisitList, their times. */
  listed: number
  first: number
  last: number
  start: number
  end: number
  ordered: boolean
}

/** Everything one roll-up adds for one link. */
export interface LinkTally {
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
  /** The human visits counted, and the latest of them: what the link's own counters gain (links.clicks, links.last_clicked_at). */
  human: number
  lastHuman: number | null
}

/**
 * Every visit of a roll-up, numbered in the order tallied: its time, its profile, and the next visit of
 * the same link and hour (-1 for none), so that each hour's visits form a list. Three typed arrays for the
 * whole roll-up rather than an array per link and hour grown visit by visit, which cost more in garbage
 * collection than the tally itself.
 */
export interface VisitList {
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
      let link = linksOf[v[o + LINK] as number]
      if (link === undefined) {
        const linkId = strings[v[o + LINK] as number] as string
        link = links.get(linkId)
        if (link === undefined) {
          link = {
            hours: new Map(),
            visitors: new Map(),
            hour: Number.NaN,
            current: undefined,
            lastVisitor: undefined,
            lastDay: Number.NaN,
            lastAt: 0,
            human: 0,
            lastHuman: null,
          }
          links.set(linkId, link)
        }
        linksOf[v[o + LINK] as number] = link
      }
      const at = base + (v[o + OFFSET] as number)
      const id = ids[v[o + PROFILE] as number] as number
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
            humanAfter: 0,
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
      link.human++
      if (profile.qr) tally.qr++
      if (tally.lastHuman === null || at > tally.lastHuman) tally.lastHuman = at
      if (link.lastHuman === null || at > link.lastHuman) link.lastHuman = at
      tally.profiles.set(id, (tally.profiles.get(id) ?? 0) + 1)
      const day = dayOf(at)
      const visitor = strings[v[o + VISITOR] as number] as string
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
export function blockOf(hour: HourTally, visits: VisitList, profiles: readonly Profile[]): string {
  let pairs: number[] = new Array<number>(hour.listed * BLOCK_FIELDS)
  for (let i = hour.first, o = 0; i !== -1; i = visits.next[i] as number, o += BLOCK_FIELDS) {
    pairs[o + BLOCK_AT] = visits.at[i] as number
    pairs[o + BLOCK_PROFILE] = visits.profile[i] as number
  }
  if (!hour.ordered) {
    const order = Array.from({ length: pairs.length / BLOCK_FIELDS }, (_, i) => i * BLOCK_FIELDS).sort(
      (a, b) => (pairs[a + BLOCK_AT] as number) - (pairs[b + BLOCK_AT] as number),
    )
    pairs = order.flatMap((o) => pairs.slice(o, o + BLOCK_FIELDS))
  }
  return JSON.stringify(encodeBlock(pairs, profiles))
}

/** An hour's human visits per dimension and value. */
export const facetsOf = (hour: HourTally, profiles: readonly Profile[]): Facets => addProfiles({}, hour.profiles, profiles)

/** Adds visits counted per profile (a number of `profiles`) to `facets`, per dimension and value, without building counts of their own first. */
export function addProfiles(facets: Facets, counts: ReadonlyMap<number, number>, profiles: readonly Profile[]): Facets {
  for (const [id, n] of counts) addProfile(facets, profiles[id] as Profile, n)
  return facets
}
