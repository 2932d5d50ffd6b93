import { countryOf, dayOf, referrerHost, userAgentFacts, visitorKey } from './classify.js'
import type { Visit } from './clicks.js'
import { StringTable, VisitColumnsBuilder, type Profile, type VisitColumns } from './visit-columns.js'

/**
 * A batch of raw visits, as the serving thread buffers them and hands them to the click writer thread:
 * every distinct header value (IP, User-Agent, Referer, country) once, each visit's link id, and each
 * visit as NUMBERS numbers in one typed array, which the thread receives as one copy of memory. A visit
 * is encoded as it is recorded: the header strings of each request die young instead of waiting a
 * second in the buffer (which promoted them to the old generation and made the garbage collector work
 * for every visit), and a batch is ready to send without a pass over it on the serving thread.
 */
export interface EncodedVisits {
  /** Distinct header values. */
  readonly strings: string[]
  /**
   * Per visit, its link's id, not interned: the ids are the redirect cache's own long-lived strings,
   * and a table of every link visited (10,000s of entries) made each visit's lookups miss the CPU
   * caches on the serving thread, where the table of header values stays small.
   */
  readonly links: string[]
  /** Per visit: time, flags (QR_VISIT | HEAD_VISIT), IP, User-Agent, Referer, country; a string's index in `strings`, or -1. */
  readonly numbers: Float64Array<ArrayBuffer>
  /** The batch's human visits of links with a click limit, per link (links/link-controls.ts); not sent to the thread. */
  readonly counted?: ReadonlyMap<string, number>
}

const NUMBERS = 6
const QR_VISIT = 1
const HEAD_VISIT = 2

/**
 * The EncodedVisits being filled, one visit at a time; `take` hands it over and starts the next. One
 * builder serves batch after batch: its string table and the size of its array carry over, so that a
 * batch allocates what it adds, not the table and array of the batch before again.
 */
export class VisitBatchBuilder {
  readonly #strings = new StringTable()
  #links: string[] = []
  #counted = new Map<string, number>()
  #numbers = new Float64Array(256 * NUMBERS)
  #length = 0

  /** Adds a visit; `counted`: it counts towards its link's click limit. */
  add(visit: Visit, counted = false): void {
    if (this.#length === this.#numbers.length) {
      const grown = new Float64Array(this.#numbers.length * 2)
      grown.set(this.#numbers)
      this.#numbers = grown
    }
    const n = this.#numbers
    let o = this.#length
    this.#links.push(visit.linkId)
    n[o++] = visit.at
    n[o++] = (visit.qr ? QR_VISIT : 0) | (visit.head ? HEAD_VISIT : 0)
    n[o++] = this.#strings.id(visit.ip)
    n[o++] = this.#strings.id(visit.userAgent)
    n[o++] = this.#strings.id(visit.referer)
    n[o++] = this.#strings.id(visit.country)
    this.#length = o
    if (counted) this.#counted.set(visit.linkId, (this.#counted.get(visit.linkId) ?? 0) + 1)
  }

  get size(): number {
    return this.#length / NUMBERS
  }

  /** The visits added since the last take, as one batch; the builder is empty again. */
  take(): EncodedVisits {
    const batch = { strings: this.#strings.restart(), links: this.#links, numbers: this.#numbers.slice(0, this.#length), counted: this.#counted }
    this.#links = []
    this.#counted = new Map()
    this.#length = 0
    return batch
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
  for (let o = 0; o < batch.numbers.length; o += NUMBERS) days.add(dayOf(batch.numbers[o] as number))
  return days
}

/**
 * Classifies an encoded batch (classify.ts) into a journal batch. Each distinct User-Agent, Referer and visitor is looked at once per batch, and visits that
 * share what they are (browser, OS, device, bot, QR, referrer, country) share one Profile object.
 */
export function classifyBatch(batch: EncodedVisits, saltOf: (day: number) => string): VisitColumns {
  const { strings, links, numbers } = batch
  const text = (i: number) => (i < 0 ? undefined : (strings[i] as string))
  // Keys made of string indexes (below 2^18 each in a batch of at most 50,000 visits): no string built per visit.
  const width = strings.length + 1
  const referrers = new Map<number, string | null>()
  /** (User-Agent, Referer) → (country, flags) → profile. */
  const profiles = new Map<number, Map<number, Profile>>()
  /** (IP, User-Agent) → visitor key, for the day of `salt`. */
  let visitors = new Map<number, string>()
  let day = Number.NaN
  let salt = ''
  const columns = new VisitColumnsBuilder()
  for (let i = 0, o = 0; o < numbers.length; i++, o += NUMBERS) {
    const at = numbers[o] as number
    const flags = numbers[o + 1] as number
    const ip = numbers[o + 2] as number
    const ua = numbers[o + 3] as number
    const ref = numbers[o + 4] as number
    const country = numbers[o + 5] as number
    let byAgent = profiles.get((ua + 1) * width + ref + 1)
    if (byAgent === undefined) profiles.set((ua + 1) * width + ref + 1, (byAgent = new Map()))
    let profile = byAgent.get((country + 1) * 4 + flags)
    if (profile === undefined) {
      const facts = userAgentFacts(text(ua))
      let referrer = referrers.get(ref)
      if (referrer === undefined) referrers.set(ref, (referrer = referrerHost(text(ref))))
      profile = {
        bot: facts.bot || (flags & HEAD_VISIT) !== 0,
        qr: (flags & QR_VISIT) !== 0,
        referrer,
        browser: facts.browser,
        os: facts.os,
        device: facts.device,
        country: countryOf(text(country)),
      }
      byAgent.set((country + 1) * 4 + flags, profile)
    }
    if (dayOf(at) !== day) {
      day = dayOf(at)
      salt = saltOf(day)
      visitors = new Map()
    }
    let visitor = visitors.get((ip + 1) * width + ua + 1)
    if (visitor === undefined) visitors.set((ip + 1) * width + ua + 1, (visitor = visitorKey(salt, text(ip) ?? '', text(ua) ?? '')))
    columns.push(links[i] as string, at, profile, visitor)
  }
  return columns.build()
}
