import { classifyVisit, countryOf, dayOf, visitorKey, type Place } from './classify.js'
import type { GeoDatabase } from './geoip.js'
import { layout } from './layout.js'
import { StringTable, VisitColumnsBuilder, type VisitColumns } from './visit-columns.js'

/** One visit of a short link, as the redirect saw it. Parsing and classification happen off the hot path. */
export interface Visit {
  readonly linkId: string
  readonly at: number
  readonly qr: boolean
  /** A HEAD request: link previews check links with HEAD, often with a browser's User-Agent. */
  readonly head: boolean
  readonly ip: string | undefined
  readonly userAgent: string | undefined
  readonly referer: string | undefined
  readonly country: string | undefined
  /** The Accept-Language header, as sent (parsed in the writer thread). */
  readonly acceptLanguage?: string | undefined
  /**
   * The final destination (the visit's query merged in) when it holds `utm_`, else undefined: the
   * redirect only looks for the substring, and the writer thread reads the parameters.
   */
  readonly utmLocation?: string | undefined
  /** The link's place in the open batch (its redirect target's), when the caller keeps one. */
  readonly slot?: BatchSlot
}

/**
 * A batch of raw visits, as the serving thread buffers them and hands them to the click writer thread:
 * every distinct header value (IP, User-Agent, Referer, country, Accept-Language, UTM location) once, the links visited (each once when
 * its visits bring a BatchSlot), and each visit as RAW_VISIT's numbers in one typed array, which the thread
 * receives as one copy of memory. A visit is encoded as it is recorded: the header strings of each
 * request die young instead of waiting a second in the buffer (which promoted them to the old
 * generation and made the garbage collector work for every visit), and a batch is ready to send
 * without a pass over it on the serving thread.
 */
export interface EncodedVisits {
  /** Distinct header values. */
  readonly strings: string[]
  /** The batch's link ids: each once when its visits came with a BatchSlot, else once per visit. */
  readonly links: string[]
  /** Per visit, RAW_VISIT: a view of shared memory (VisitBatchBuilder), which a thread receives without a copy. */
  readonly numbers: Float64Array<ArrayBufferLike>
  /** The batch's human visits of links with a click limit, per link (links/link-controls.ts); not sent to the thread. */
  readonly counted?: ReadonlyMap<string, number>
}

/**
 * A raw visit: its link (an index in `links`), time, flags (QR_VISIT | HEAD_VISIT), then IP, User-Agent,
 * Referer, country, Accept-Language and UTM location (a string's index in `strings`, or -1).
 */
export const RAW_VISIT = layout(['link', 'at', 'flags', 'ip', 'userAgent', 'referer', 'country', 'acceptLanguage', 'utmLocation'])
const NUMBERS = RAW_VISIT.width
const {
  link: LINK,
  at: AT,
  flags: FLAGS,
  ip: IP,
  userAgent: USER_AGENT,
  referer: REFERER,
  country: COUNTRY,
  acceptLanguage: LANGUAGE,
  utmLocation: UTM,
} = RAW_VISIT.index
const QR_VISIT = 1
const HEAD_VISIT = 2

/**
 * Where the open batch lists a link, kept with the link's redirect target (one per link, mutable): a
 * batch then lists each link once, and its visits refer to it by number, without a lookup per visit (a
 * table of every link visited missed the CPU caches on the serving thread) and
 * without sending the writer thread the same id once per visit.
 */
export interface BatchSlot {
  batch: number
  index: number
}
export const newBatchSlot = (): BatchSlot => ({ batch: -1, index: 0 })
/** Batch numbers, unique in the process: a slot filled for one builder's batch never reads as another's. */
let lastBatch = 0

/** Shared memory for `values` numbers. */
const sharedNumbers = (values: number) => new Float64Array(new SharedArrayBuffer(values * Float64Array.BYTES_PER_ELEMENT))

/**
 * The EncodedVisits being filled, one visit at a time; `take` hands it over and starts the next. One
 * builder serves batch after batch: its string table and the size of its array carry over, so that a
 * batch allocates what it adds, not the table and array of the batch before again.
 *
 * The numbers are written into shared memory, and `take` hands that memory over as it is: the writer
 * thread reads it where it is. A batch of a second's visits under load is megabytes, and copying it at
 * each flush (a copy out of the builder, another to post it, each into memory the process had to fault
 * in) held the serving thread for 5–13 ms, every request in flight with it: that was the redirect's
 * p99. Once a batch is written its memory comes back (`recycle`) for the batch after next.
 */
export class VisitBatchBuilder {
  readonly #strings = new StringTable()
  #links: string[] = []
  #batch = ++lastBatch
  #counted = new Map<string, number>()
  #numbers = sharedNumbers(256 * NUMBERS)
  #length = 0
  /** The memory of a written batch, kept for the next `take` (one is enough: batches are written in turn). */
  #spare: SharedArrayBuffer | undefined

  /** Adds a visit; `counted`: it counts towards its link's click limit. */
  add(visit: Visit, counted = false): void {
    if (this.#length === this.#numbers.length) {
      const grown = sharedNumbers(this.#numbers.length * 2)
      grown.set(this.#numbers)
      this.#numbers = grown
    }
    const n = this.#numbers
    const o = this.#length
    const slot = visit.slot
    if (slot === undefined) n[o + LINK] = this.#links.push(visit.linkId) - 1
    else {
      if (slot.batch !== this.#batch) {
        slot.batch = this.#batch
        slot.index = this.#links.push(visit.linkId) - 1
      }
      n[o + LINK] = slot.index
    }
    n[o + AT] = visit.at
    n[o + FLAGS] = (visit.qr ? QR_VISIT : 0) | (visit.head ? HEAD_VISIT : 0)
    n[o + IP] = this.#strings.id(visit.ip)
    n[o + USER_AGENT] = this.#strings.id(visit.userAgent)
    n[o + REFERER] = this.#strings.id(visit.referer)
    n[o + COUNTRY] = this.#strings.id(visit.country)
    n[o + LANGUAGE] = this.#strings.id(visit.acceptLanguage)
    n[o + UTM] = this.#strings.id(visit.utmLocation)
    this.#length = o + NUMBERS
    if (counted) this.#counted.set(visit.linkId, (this.#counted.get(visit.linkId) ?? 0) + 1)
  }

  get size(): number {
    return this.#length / NUMBERS
  }

  /**
   * The visits added since the last take, as one batch; the builder is empty again. The batch's numbers
   * stay the batch's until it is given to `recycle`: nothing writes them meanwhile.
   */
  take(): EncodedVisits {
    const batch = { strings: this.#strings.restart(), links: this.#links, numbers: this.#numbers.subarray(0, this.#length), counted: this.#counted }
    const capacity = this.#numbers.length
    const spare = this.#spare
    this.#spare = undefined
    this.#numbers = spare !== undefined && spare.byteLength >= capacity * Float64Array.BYTES_PER_ELEMENT ? new Float64Array(spare) : sharedNumbers(capacity)
    this.#links = []
    this.#batch = ++lastBatch
    this.#counted = new Map()
    this.#length = 0
    return batch
  }

  /**
   * A batch taken from this builder has been written: nothing reads its numbers any more, and their
   * memory serves a later batch. Memory being filled again (a batch given back twice) is left alone.
   */
  recycle(batch: EncodedVisits): void {
    const memory = batch.numbers.buffer
    if (memory instanceof SharedArrayBuffer && memory !== this.#numbers.buffer) this.#spare = memory
  }
}

export function encodeVisits(visits: readonly Visit[]): EncodedVisits {
  const batch = new VisitBatchBuilder()
  for (const v of visits) batch.add(v)
  return batch.take()
}

/** How many visits a batch holds. */
export const visitCount = (batch: EncodedVisits): number => batch.numbers.length / NUMBERS

/** The UTC days of a batch's visits. */
export function daysOf(batch: EncodedVisits): Set<number> {
  const days = new Set<number>()
  let last = Number.NaN
  // Visits come about in time order: a day is added when it changes, not once per visit.
  for (let o = 0; o < batch.numbers.length; o += NUMBERS) {
    const day = dayOf(batch.numbers[o + AT] as number)
    if (day !== last) days.add((last = day))
  }
  return days
}

/** The visits' numbers of the batch being classified: classifyBatch runs to its end at once, so one array serves every call of a thread. */
const scratch: number[] = []

/**
 * Classifies an encoded batch (classify.ts) into a journal batch. Each distinct request (User-Agent,
 * Referer, country, Accept-Language, UTM location, flags and place) and visitor is looked at once per
 * batch, and visits that share a profile share one profile number. `geo`: the IP database, whose place
 * for each distinct address is looked up once per batch (for the country when the trusted header gives
 * none, and for the city in a city database).
 */
export function classifyBatch(batch: EncodedVisits, saltOf: (day: number) => string, geo?: GeoDatabase): VisitColumns {
  const { strings, links, numbers } = batch
  const text = (i: number) => (i < 0 ? undefined : (strings[i] as string))
  // Keys made of string indexes (below 2^19 each in a batch of at most 50,000 visits): no string built per visit.
  const width = strings.length + 1
  /** (User-Agent, Referer) → (country, flags, place) → (Accept-Language, UTM location) → profile (its number in `columns`). */
  const profiles = new Map<number, Map<number, Map<number, number>>>()
  /** (IP, User-Agent) → visitor key (its number in `columns`), for the day of `salt`. */
  let visitors = new Map<number, number>()
  let day = Number.NaN
  let salt = ''
  /** Per string index: the place of an IP, whether a country header holds a country (looked up once each). */
  const placeOfIp: (Place | undefined)[] = []
  const headerCountry: (boolean | undefined)[] = []
  /** Places by number (0: none), for the keys. */
  const placeIds = new Map<Place | undefined, number>([[undefined, 0]])
  const places: (Place | undefined)[] = [undefined]
  const columns = new VisitColumnsBuilder(scratch)
  const linkIds = links.map((id) => columns.intern(id))
  for (let o = 0; o < numbers.length; o += NUMBERS) {
    const link = linkIds[numbers[o + LINK] as number] as number
    const at = numbers[o + AT] as number
    const flags = numbers[o + FLAGS] as number
    const ip = numbers[o + IP] as number
    const ua = numbers[o + USER_AGENT] as number
    const ref = numbers[o + REFERER] as number
    const country = numbers[o + COUNTRY] as number
    const language = numbers[o + LANGUAGE] as number
    const utm = numbers[o + UTM] as number
    let place: Place | undefined
    // A trusted header's country wins: the database is asked only for the visits without one, or for their city.
    if (geo !== undefined && (geo.cities || !(headerCountry[country + 1] ??= countryOf(text(country)) !== null))) {
      place = placeOfIp[ip + 1] ??= geo.place(text(ip) ?? '')
    }
    let placeId = placeIds.get(place)
    if (placeId === undefined) placeIds.set(place, (placeId = places.push(place) - 1))
    let byAgent = profiles.get((ua + 1) * width + ref + 1)
    if (byAgent === undefined) profiles.set((ua + 1) * width + ref + 1, (byAgent = new Map()))
    const requestKey = ((country + 1) * 4 + flags) * 2 ** 20 + placeId
    let byRequest = byAgent.get(requestKey)
    if (byRequest === undefined) byAgent.set(requestKey, (byRequest = new Map()))
    let profile = byRequest.get((language + 1) * width + utm + 1)
    if (profile === undefined) {
      profile = columns.profile(
        classifyVisit({
          userAgent: text(ua),
          referer: text(ref),
          country: text(country),
          head: (flags & HEAD_VISIT) !== 0,
          qr: (flags & QR_VISIT) !== 0,
          acceptLanguage: text(language),
          utmLocation: text(utm),
          place,
        }),
      )
      byRequest.set((language + 1) * width + utm + 1, profile)
    }
    if (dayOf(at) !== day) {
      day = dayOf(at)
      salt = saltOf(day)
      visitors = new Map()
    }
    let visitor = visitors.get((ip + 1) * width + ua + 1)
    if (visitor === undefined) visitors.set((ip + 1) * width + ua + 1, (visitor = columns.intern(visitorKey(salt, text(ip) ?? '', text(ua) ?? ''))))
    columns.push(link, at, profile, visitor)
  }
  return columns.build()
}
