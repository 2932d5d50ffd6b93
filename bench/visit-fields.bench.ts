import { performance } from 'node:perf_hooks'
import { median } from './load.js'
import { openGeoDatabase, type GeoDatabase } from '../src/stats/geoip.js'
import { classifyBatch, VisitBatchBuilder, visitCount, type EncodedVisits, type Visit } from '../src/stats/visit-batch.js'

/*
 * In process, one thread: what recording a visit's Accept-Language and UTM location costs the serving
 * thread (VisitBatchBuilder.add, as the redirect calls it, with header strings made afresh for each
 * visit as the HTTP parser makes them, in every variant: only recording them differs), and what the IP database costs the click writer thread (a
 * lookup, and classifyBatch with and without it). The serving thread's variants alternate in slices of
 * 20,000 visits, in mirrored order, and a difference is taken within each slice, so that the machine's
 * drift between slices cancels out; each figure is a median.
 */

export interface VisitFieldsSettings {
  /** Visits per round and variant. */
  visits: number
  rounds: number
}

export interface VisitFieldsReport {
  settings: VisitFieldsSettings
  /**
   * Serving thread, ns per visit: the `includes('utm_')` check alone, add() with neither field, and what
   * recording Accept-Language, and both fields, adds to it (medians of the differences within each slice).
   */
  includesNs: number
  neitherNs: number
  languageAddsNs: number
  bothAddsNs: number
  /** Writer thread: µs per lookup (IPv4, IPv6), classifyBatch µs per visit without and with the database, the database's opening. */
  lookupV4Us: number
  lookupV6Us: number
  classifyUs: number
  classifyGeoUs: number
  openMs: number
}

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const LANGUAGES = ['en-US,en;q=0.9', 'fr-CH, fr;q=0.9, en;q=0.8', 'de-DE,de;q=0.9,en;q=0.8', 'es-419,es;q=0.9', 'ja,en-US;q=0.9']
const PLAIN = Array.from({ length: 64 }, (_, i) => `https://www.example.com/products/item-${i}?ref=home`)
const TAGGED = PLAIN.map((d, i) => `${d}&utm_source=newsletter&utm_medium=email&utm_campaign=spring-${i % 4}`)

/** A small deterministic generator, so that runs look up the same addresses. */
function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0
    return s / 2 ** 32
  }
}

/** Header strings as a request brings them: new strings each time, cut from the bytes received. */
function requestStrings(count: number) {
  const next = random(7)
  const text = [CHROME, ...LANGUAGES].join('\n')
  const bytes = Buffer.from(text, 'latin1')
  const at = (s: string) => [text.indexOf(s), text.indexOf(s) + s.length] as const
  const ua = at(CHROME)
  const languages = LANGUAGES.map(at)
  const ips = Array.from(
    { length: count },
    () => `${1 + Math.floor(next() * 222)}.${Math.floor(next() * 256)}.${Math.floor(next() * 256)}.${Math.floor(next() * 256)}`,
  )
  return { bytes, ua, languages, ips }
}

type Variant = 'neither' | 'language' | 'both'
/** Visits per variant in one slice. */
const SLICE = 20_000

function addRound(variant: Variant, visits: number, builder: VisitBatchBuilder, strings: ReturnType<typeof requestStrings>): number {
  const { bytes, ua, languages, ips } = strings
  const started = performance.now()
  for (let i = 0; i < visits; i++) {
    const language = languages[i % languages.length] as readonly [number, number]
    const destination = (variant === 'both' ? TAGGED : PLAIN)[i & 63] as string
    // The parser makes the header's string whether or not the visit records it.
    const acceptLanguage = bytes.toString('latin1', language[0], language[1])
    const visit: Visit = {
      linkId: 'lnk_bench',
      at: 1_800_000_000_000 + i,
      qr: false,
      head: false,
      ip: ips[i % ips.length],
      userAgent: bytes.toString('latin1', ua[0], ua[1]),
      referer: undefined,
      country: undefined,
      acceptLanguage: variant === 'neither' ? undefined : acceptLanguage,
      utmLocation: destination.includes('utm_') ? destination : undefined,
      slot: undefined,
    }
    builder.add(visit)
  }
  const ns = ((performance.now() - started) * 1e6) / visits
  // As the click buffer seals a batch: the same builder serves the next.
  builder.take()
  return ns
}

function includesRound(visits: number): number {
  let found = 0
  const started = performance.now()
  for (let i = 0; i < visits; i++) if ((PLAIN[i & 63] as string).includes('utm_')) found++
  const ns = ((performance.now() - started) * 1e6) / visits
  if (found !== 0) throw new Error('no plain destination holds utm_')
  return ns
}

function lookupRound(geo: GeoDatabase, addresses: readonly string[]): number {
  const started = performance.now()
  let placed = 0
  for (const address of addresses) if (geo.place(address).country !== null) placed++
  if (placed === 0) throw new Error('no address placed')
  return ((performance.now() - started) * 1000) / addresses.length
}

function classifyRound(batch: EncodedVisits, geo: GeoDatabase | undefined): number {
  const started = performance.now()
  classifyBatch(batch, () => 'salt', geo)
  return ((performance.now() - started) * 1000) / visitCount(batch)
}

export function benchVisitFields(settings: VisitFieldsSettings, log: (line: string) => void): VisitFieldsReport {
  const strings = requestStrings(10_000)
  const builder = new VisitBatchBuilder()
  const samples: Record<'includes' | Variant | 'v4' | 'v6' | 'classify' | 'classifyGeo', number[]> = {
    includes: [],
    neither: [],
    language: [],
    both: [],
    v4: [],
    v6: [],
    classify: [],
    classifyGeo: [],
  }
  const openStarted = performance.now()
  const geo = openGeoDatabase()
  const openMs = performance.now() - openStarted
  const next = random(11)
  const v4 = strings.ips
  const v6 = Array.from({ length: 10_000 }, () =>
    ['2a0' + Math.floor(next() * 10), ...Array.from({ length: 7 }, () => Math.floor(next() * 65536).toString(16))].join(':'),
  )
  // A batch as the writer gets it: 50,000 visits, 10,000 addresses, five languages, half with UTM.
  const batchBuilder = new VisitBatchBuilder()
  for (let i = 0; i < 50_000; i++)
    batchBuilder.add({
      linkId: `lnk_${i % 1000}`,
      at: 1_800_000_000_000 + i,
      qr: false,
      head: false,
      ip: v4[i % v4.length],
      userAgent: CHROME,
      referer: undefined,
      country: undefined,
      acceptLanguage: LANGUAGES[i % LANGUAGES.length],
      utmLocation: i % 2 === 0 ? TAGGED[i & 63] : undefined,
    })
  const batch = batchBuilder.take()
  for (let round = 0; round < settings.rounds; round++) {
    log(`visit fields: round ${round + 1} of ${settings.rounds}`)
    for (let slice = 0; slice < settings.visits / SLICE; slice++) {
      const order: Variant[] = slice % 2 === 0 ? ['neither', 'language', 'both'] : ['both', 'language', 'neither']
      const ns = new Map(order.map((variant) => [variant, addRound(variant, SLICE, builder, strings)]))
      const neither = ns.get('neither') as number
      samples.neither.push(neither)
      samples.language.push((ns.get('language') as number) - neither)
      samples.both.push((ns.get('both') as number) - neither)
    }
    samples.includes.push(includesRound(settings.visits))
    samples.v4.push(lookupRound(geo, v4))
    samples.v6.push(lookupRound(geo, v6))
    // A fresh IP database each round would measure its cache of places being filled: the same one serves every batch, as in the writer.
    const [first, second] = round % 2 === 0 ? [undefined, geo] : [geo, undefined]
    for (const g of [first, second]) (g === undefined ? samples.classify : samples.classifyGeo).push(classifyRound(batch, g))
  }
  return {
    settings,
    includesNs: median(samples.includes),
    neitherNs: median(samples.neither),
    languageAddsNs: median(samples.language),
    bothAddsNs: median(samples.both),
    lookupV4Us: median(samples.v4),
    lookupV6Us: median(samples.v6),
    classifyUs: median(samples.classify),
    classifyGeoUs: median(samples.classifyGeo),
    openMs,
  }
}

export function renderVisitFields(r: VisitFieldsReport): string {
  const ns = (n: number) => `${n.toFixed(0)} ns`
  const us = (n: number) => `${n.toFixed(2)} µs`
  return [
    `### Visit fields: ${r.settings.visits.toLocaleString('en-US')} visits per variant and round in slices of ${SLICE.toLocaleString('en-US')}, ${r.settings.rounds} rounds (medians)`,
    '',
    '| serving thread, per visit | |',
    '|---|---|',
    `| \`includes('utm_')\` on a destination without UTM | ${ns(r.includesNs)} |`,
    `| a visit built and added, neither field | ${ns(r.neitherNs)} |`,
    `| recording Accept-Language adds | ${ns(r.languageAddsNs)} |`,
    `| recording Accept-Language and a UTM location adds | ${ns(r.bothAddsNs)} |`,
    '',
    '| click writer thread | |',
    '|---|---|',
    `| opening the shipped IP database | ${r.openMs.toFixed(0)} ms |`,
    `| a lookup, IPv4 / IPv6 | ${us(r.lookupV4Us)} / ${us(r.lookupV6Us)} |`,
    `| classifyBatch per visit (50,000 visits, 10,000 addresses), without / with the database | ${us(r.classifyUs)} / ${us(r.classifyGeoUs)} |`,
  ].join('\n')
}
