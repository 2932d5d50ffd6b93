/**
 * What is kept of a visit besides its link, time and visitor: the visit's profile. A site's visits
 * share few of them (the same browsers, referrers and countries again and again), so batches store
 * each distinct profile once and each visit as a few numbers.
 */
export interface Profile {
  readonly bot: boolean
  readonly qr: boolean
  readonly referrer: string | null
  readonly browser: string | null
  readonly os: string | null
  readonly device: string | null
  readonly country: string | null
}

/**
 * Visits column by column, as stored in JSON: a batch in the click journal (VisitColumns) or a link's
 * visits of one hour in a click block (BlockColumns). Every string once in `strings`; every distinct
 * profile once in `profiles`, PROFILE_FIELDS numbers each (flags, then referrer, browser, OS, device and
 * country as indexes into `strings`, -1 for none); times as offsets from `base`.
 */
interface Columns {
  readonly base: number
  readonly strings: readonly string[]
  readonly profiles: number[]
}
/** A journal batch: per visit, link (string index), time offset, profile, visitor key (string index). */
export interface VisitColumns extends Columns {
  readonly visits: number[]
}
/** A click block: per visit, time offset and profile (the visitor key is kept only in the day's visitor set). */
export interface BlockColumns extends Columns {
  readonly visits: number[]
}

export const VISIT_FIELDS = 4
export const BLOCK_FIELDS = 2
const PROFILE_FIELDS = 6
const BOT = 1
const QR = 2

const profileKey = (p: Profile) => `${p.bot ? 1 : 0}${p.qr ? 1 : 0}\t${p.referrer}\t${p.browser}\t${p.os}\t${p.device}\t${p.country}`

/**
 * Each distinct string once, numbered in order of first sight; none (null or undefined) is -1.
 * `restart` begins a new, empty list but keeps the map, whose entries of earlier lists then read as
 * absent: a table restarted for every batch (the click buffer's) would otherwise rebuild a map of
 * thousands of entries each time, and its regrowth in the old generation made the garbage collector
 * run a full collection every second under load.
 */
export class StringTable {
  #list: string[] = []
  /** String → `#base` + its number in the current list; an entry below `#base` is from an earlier list. */
  readonly #ids = new Map<string, number>()
  #base = 0

  get list(): readonly string[] {
    return this.#list
  }

  id(value: string | null | undefined): number {
    if (value === null || value === undefined) return -1
    const known = this.#ids.get(value)
    if (known !== undefined && known >= this.#base) return known - this.#base
    const id = this.#list.push(value) - 1
    this.#ids.set(value, this.#base + id)
    return id
  }

  /** Hands over the current list and starts an empty one. */
  restart(): string[] {
    const list = this.#list
    this.#list = []
    this.#base += list.length
    // Forgotten from time to time: strings of past visits (addresses) do not stay in memory for long,
    // and the numbers stay small integers.
    if (this.#base > RESTARTS_KEPT_BELOW || this.#ids.size > 4 * Math.max(list.length, 1024)) {
      this.#ids.clear()
      this.#base = 0
    }
    return list
  }
}
/** The map of a restarted table is dropped once the lists since it was last dropped held this many strings. */
const RESTARTS_KEPT_BELOW = 1_000_000

/** Distinct profiles, each with a number: those of a roll-up, gathered from several batches. */
export class ProfileTable {
  readonly list: Profile[] = []
  readonly #ids = new Map<string, number>()

  id(profile: Profile): number {
    const key = profileKey(profile)
    let id = this.#ids.get(key)
    if (id === undefined) {
      id = this.list.push(profile) - 1
      this.#ids.set(key, id)
    }
    return id
  }
}

/** Appends a profile's PROFILE_FIELDS numbers to `out`, its strings interned in `strings`. */
function pushProfile(out: number[], p: Profile, strings: StringTable): void {
  out.push((p.bot ? BOT : 0) | (p.qr ? QR : 0), strings.id(p.referrer), strings.id(p.browser), strings.id(p.os), strings.id(p.device), strings.id(p.country))
}

/** Builds a journal batch from classified visits (visit-batch.ts). */
export class VisitColumnsBuilder {
  readonly #strings = new StringTable()
  readonly #profiles: number[] = []
  readonly #table = new ProfileTable()
  readonly #visits: number[] = []
  #base: number | undefined

  /** A string's number in the batch (a link id or a visitor key), for `push`. */
  intern(value: string): number {
    return this.#strings.id(value)
  }

  /** A profile's number in the batch, for `push`: equal profiles share one. */
  profile(p: Profile): number {
    const id = this.#table.id(p)
    if (id * PROFILE_FIELDS === this.#profiles.length) pushProfile(this.#profiles, p, this.#strings)
    return id
  }

  /**
   * A visit; `link`, `profile` and `visitor` are numbers from `intern` and `profile`, taken once per
   * distinct value rather than per visit.
   */
  push(link: number, at: number, profile: number, visitor: number): void {
    this.#base ??= at
    this.#visits.push(link, at - this.#base, profile, visitor)
  }

  build(): VisitColumns {
    return { base: this.#base ?? 0, strings: this.#strings.list, profiles: this.#profiles, visits: this.#visits }
  }
}

/**
 * A click block from `pairs` (time, then a profile's number in `profiles`, per visit), which must be in
 * time order; `profiles` are distinct (a ProfileTable's list), so a block numbers them as they come,
 * without comparing them again: one string table per block, not a dictionary of profiles (a roll-up
 * writes thousands of blocks).
 */
export function encodeBlock(pairs: readonly number[], profiles: readonly Profile[]): BlockColumns {
  const strings = new StringTable()
  const encoded: number[] = []
  /** A profile's number in `profiles` → its number in the block. */
  const local: number[] = []
  const base = pairs[0] ?? 0
  const visits: number[] = new Array(pairs.length)
  for (let o = 0; o < pairs.length; o += BLOCK_FIELDS) {
    const id = pairs[o + 1] as number
    let l = local[id]
    if (l === undefined) {
      l = local[id] = encoded.length / PROFILE_FIELDS
      pushProfile(encoded, profiles[id] as Profile, strings)
    }
    visits[o] = (pairs[o] as number) - base
    visits[o + 1] = l
  }
  return { base, strings: strings.list, profiles: encoded, visits }
}

/** The profiles of a Columns value, by index. */
export function profilesOf(columns: Columns): Profile[] {
  const { strings, profiles: p } = columns
  const text = (i: number) => (i < 0 ? null : (strings[i] as string))
  const out: Profile[] = []
  for (let o = 0; o < p.length; o += PROFILE_FIELDS) {
    const flags = p[o] as number
    out.push({
      bot: (flags & BOT) !== 0,
      qr: (flags & QR) !== 0,
      referrer: text(p[o + 1] as number),
      browser: text(p[o + 2] as number),
      os: text(p[o + 3] as number),
      device: text(p[o + 4] as number),
      country: text(p[o + 5] as number),
    })
  }
  return out
}

/** Every visit of a journal batch. */
export function* visitsOf(batch: VisitColumns): Generator<Profile & { linkId: string; at: number; visitorKey: string }> {
  const profiles = profilesOf(batch)
  const v = batch.visits
  for (let o = 0; o < v.length; o += VISIT_FIELDS) {
    yield {
      ...(profiles[v[o + 2] as number] as Profile),
      linkId: batch.strings[v[o] as number] as string,
      at: batch.base + (v[o + 1] as number),
      visitorKey: batch.strings[v[o + 3] as number] as string,
    }
  }
}

/** Every visit of a click block, oldest first. */
export function* blockVisits(block: BlockColumns): Generator<Profile & { at: number }> {
  const profiles = profilesOf(block)
  const v = block.visits
  for (let o = 0; o < v.length; o += BLOCK_FIELDS) yield { ...(profiles[v[o + 1] as number] as Profile), at: block.base + (v[o] as number) }
}
