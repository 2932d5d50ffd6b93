import { layout } from './layout.js'
import { DIMENSION_NAMES, FIRST_DIMENSIONS, type Dimension, type Profile, type ProfileInput } from './stats.dimensions.js'

/**
 * Visits column by column, as stored in JSON: a batch in the click journal (VisitColumns) or a link's
 * visits of one hour in a click block (BlockColumns). Every string once in `strings`; every distinct
 * profile once in `profiles` (PROFILE: flags, then each dimension's value as an index into `strings`,
 * -1 for none); times as offsets from `base`.
 */
interface Columns {
  readonly base: number
  readonly strings: readonly string[]
  readonly profiles: number[]
  /**
   * The dimensions of `profiles`, in order, when they are not FIRST_DIMENSIONS: absent from everything
   * written before a dimension was added, so that such data reads the same, the new dimension missing.
   */
  readonly dimensions?: readonly string[]
}
/** A journal batch: per visit, JOURNAL_VISIT. */
export interface VisitColumns extends Columns {
  readonly visits: number[]
}
/** A click block: per visit, BLOCK_VISIT (the visitor key is kept only in the day's visitor set). */
export interface BlockColumns extends Columns {
  readonly visits: number[]
}

/** A journal batch's visit: its link and visitor key (indexes into `strings`), time offset and profile. */
export const JOURNAL_VISIT = layout(['link', 'offset', 'profile', 'visitor'])
/** A click block's visit. */
export const BLOCK_VISIT = layout(['offset', 'profile'])
/** A profile: BOT | QR, then its dimensions. */
const PROFILE = layout(['flags', ...DIMENSION_NAMES])
/** Written with every value only while the dimensions differ from FIRST_DIMENSIONS. */
const dimensionsKey = DIMENSION_NAMES.join() === FIRST_DIMENSIONS.join() ? {} : { dimensions: DIMENSION_NAMES }

export const VISIT_FIELDS = JOURNAL_VISIT.width
export const BLOCK_FIELDS = BLOCK_VISIT.width
const BOT = 1
const QR = 2
const { link: LINK, offset: OFFSET, profile: PROFILE_OF, visitor: VISITOR } = JOURNAL_VISIT.index
const { offset: BLOCK_OFFSET, profile: BLOCK_PROFILE } = BLOCK_VISIT.index

const profileKey = (p: ProfileInput) => `${p.bot ? 1 : 0}${p.qr ? 1 : 0}${DIMENSION_NAMES.map((d) => `\t${p[d] ?? null}`).join('')}`
/** A profile with every dimension, those left out none. */
const complete = (p: ProfileInput): Profile => ({ ...(Object.fromEntries(DIMENSION_NAMES.map((d) => [d, null])) as Record<Dimension, null>), ...p })

/**
 * Each distinct string once, numbered in order of first sight; none (null or undefined) is -1.
 * `restart` begins a new, empty list but keeps the map, whose entries of earlier lists then read as
 * absent: a table restarted for every batch (the click buffer's) would otherwise rebuild a map of
 * thousands of entries each time, and its regrowth in the old generation made the garbage collector
 * run full collections under load.
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

  id(profile: ProfileInput): number {
    const key = profileKey(profile)
    let id = this.#ids.get(key)
    if (id === undefined) {
      id = this.list.push(complete(profile)) - 1
      this.#ids.set(key, id)
    }
    return id
  }
}

/** Appends a profile's PROFILE numbers to `out`, its strings interned in `strings`. */
function pushProfile(out: number[], p: ProfileInput, strings: StringTable): void {
  out.push((p.bot ? BOT : 0) | (p.qr ? QR : 0))
  for (const d of DIMENSION_NAMES) out.push(strings.id(p[d]))
}

/** Builds a journal batch from classified visits (visit-batch.ts). */
export class VisitColumnsBuilder {
  readonly #strings = new StringTable()
  readonly #profiles: number[] = []
  readonly #table = new ProfileTable()
  readonly #visits: number[]
  #length = 0
  #base: number | undefined

  /**
   * `scratch`: an array the visits are written to and copied from once, kept by the caller from batch
   * to batch. A batch of 30,000 visits is 120,000 numbers, past V8's large-object size: a fresh array
   * grown by appends was allocated and copied again at every growth, ~10 % of the writer thread's CPU
   * under redirect load (docs/performance.md, "The click pipeline").
   */
  constructor(scratch: number[] = []) {
    this.#visits = scratch
  }

  /** A string's number in the batch (a link id or a visitor key), for `push`. */
  intern(value: string): number {
    return this.#strings.id(value)
  }

  /** A profile's number in the batch, for `push`: equal profiles share one. */
  profile(p: ProfileInput): number {
    const id = this.#table.id(p)
    if (id * PROFILE.width === this.#profiles.length) pushProfile(this.#profiles, p, this.#strings)
    return id
  }

  /**
   * A visit; `link`, `profile` and `visitor` are numbers from `intern` and `profile`, taken once per
   * distinct value rather than per visit.
   */
  push(link: number, at: number, profile: number, visitor: number): void {
    this.#base ??= at
    const o = this.#length
    this.#length = o + VISIT_FIELDS
    const v = this.#visits
    v[o + LINK] = link
    v[o + OFFSET] = at - this.#base
    v[o + PROFILE_OF] = profile
    v[o + VISITOR] = visitor
  }

  build(): VisitColumns {
    const visits = this.#visits.slice(0, this.#length)
    return { base: this.#base ?? 0, strings: this.#strings.list, profiles: this.#profiles, visits, ...dimensionsKey }
  }
}

/**
 * A click block from `pairs` (per visit, BLOCK_VISIT with its time for offset and its profile's number in `profiles`), which must be in
 * time order; `profiles` are distinct (a ProfileTable's list), so a block numbers them as they come,
 * without comparing them again: one string table per block, not a dictionary of profiles (a roll-up
 * writes thousands of blocks).
 */
export function encodeBlock(pairs: readonly number[], profiles: readonly ProfileInput[]): BlockColumns {
  const strings = new StringTable()
  const encoded: number[] = []
  /** A profile's number in `profiles` → its number in the block. */
  const local: number[] = []
  const base = pairs[BLOCK_OFFSET] ?? 0
  const visits: number[] = new Array(pairs.length)
  for (let o = 0; o < pairs.length; o += BLOCK_FIELDS) {
    const id = pairs[o + BLOCK_PROFILE] as number
    let l = local[id]
    if (l === undefined) {
      l = local[id] = encoded.length / PROFILE.width
      pushProfile(encoded, profiles[id] as ProfileInput, strings)
    }
    visits[o + BLOCK_OFFSET] = (pairs[o + BLOCK_OFFSET] as number) - base
    visits[o + BLOCK_PROFILE] = l
  }
  return { base, strings: strings.list, profiles: encoded, visits, ...dimensionsKey }
}

/** The profiles of a Columns value, by index. */
export function profilesOf(columns: Columns): Profile[] {
  const { strings, profiles: p } = columns
  const stored: readonly string[] = columns.dimensions ?? FIRST_DIMENSIONS
  const width = 1 + stored.length
  /** Each dimension's place in a stored profile, -1 when it has none (data written before it was added). */
  const places = DIMENSION_NAMES.map((d) => [d, stored.indexOf(d)] as const)
  const out: Profile[] = []
  for (let o = 0; o < p.length; o += width) {
    const flags = p[o] as number
    const profile: { -readonly [K in keyof Profile]: Profile[K] } = { bot: (flags & BOT) !== 0, qr: (flags & QR) !== 0 } as Profile
    for (const [d, at] of places as [Dimension, number][]) {
      const i = at < 0 ? -1 : (p[o + 1 + at] as number)
      profile[d] = i < 0 ? null : (strings[i] as string)
    }
    out.push(profile)
  }
  return out
}

/** Every visit of a journal batch. */
export function* visitsOf(batch: VisitColumns): Generator<Profile & { linkId: string; at: number; visitorKey: string }> {
  const profiles = profilesOf(batch)
  for (let o = 0; o < batch.visits.length; o += JOURNAL_VISIT.width) {
    const v = JOURNAL_VISIT.read(batch.visits, o)
    yield {
      ...(profiles[v.profile] as Profile),
      linkId: batch.strings[v.link] as string,
      at: batch.base + v.offset,
      visitorKey: batch.strings[v.visitor] as string,
    }
  }
}

/** Every visit of a click block, oldest first. */
export function* blockVisits(block: BlockColumns): Generator<Profile & { at: number }> {
  const profiles = profilesOf(block)
  for (let o = 0; o < block.visits.length; o += BLOCK_VISIT.width) {
    const v = BLOCK_VISIT.read(block.visits, o)
    yield { ...(profiles[v.profile] as Profile), at: block.base + v.offset }
  }
}
