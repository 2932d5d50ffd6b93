import { hash } from 'node:crypto'
import { isbot } from 'isbot'
import { LRUCache } from 'lru-cache'
import { UAParser } from 'ua-parser-js'
import { DAY_MS, floorTo, HOUR_MS } from '../shared/time.js'
import type { Profile } from './stats.dimensions.js'

export { DAY_MS, HOUR_MS } from '../shared/time.js'
export const hourOf = (ms: number) => floorTo(ms, HOUR_MS)
export const dayOf = (ms: number) => floorTo(ms, DAY_MS)

const COUNTRY = /^[A-Za-z]{2}$/

/*
 * Classifying a visit (classifyVisit; visit-batch.ts calls it once per distinct request in a batch): a bot when it is a HEAD request, has no
 * User-Agent, or its User-Agent is one isbot knows or PREVIEW_FETCHERS adds; browser, OS and device
 * type from the User-Agent (ua-parser-js 1.x, MIT; a browser with no device type is a desktop), the
 * referrer's host, an ISO country code when the trusted header carries one (else the one the client
 * address has in the IP database: geoip.ts, looked up by the caller), the first Accept-Language tag,
 * the UTM parameters of the final destination, and the visitor key. The IP goes no further than the
 * visitor key and the database lookup.
 */

/** What a visit's request tells the statistics, each value as the redirect recorded it (undefined when absent). */
export interface RawVisit {
  readonly userAgent: string | undefined
  readonly referer: string | undefined
  readonly country: string | undefined
  readonly head: boolean
  readonly qr: boolean
  readonly acceptLanguage?: string | undefined
  /** The final destination (the visit's query merged in), recorded only when it holds `utm_`. */
  readonly utmLocation?: string | undefined
  /** What the IP database knows of the client address (geoip.ts); undefined when it was not looked up. */
  readonly place?: Place | undefined
}

/** A client address's place in the IP database: its country, and its city when the database has cities (else null). */
export interface Place {
  readonly country: string | null
  /** "City, CC" in a city database, `unknown` there when the address has no city; null in a country database. */
  readonly city: string | null
}

/** A visit's profile: its value for each dimension (stats.dimensions.ts), and whether a bot or a QR scan made it. */
export function classifyVisit(visit: RawVisit): Profile {
  const facts = userAgentFacts(visit.userAgent)
  const utm = utmOf(visit.utmLocation)
  return {
    bot: facts.bot || visit.head,
    qr: visit.qr,
    referrer: referrerHost(visit.referer),
    browser: facts.browser,
    os: facts.os,
    device: facts.device,
    // A trusted header wins; the database answers for the visits it leaves without a country.
    country: countryOf(visit.country) ?? visit.place?.country ?? null,
    language: languageOf(visit.acceptLanguage),
    utmSource: utm.source,
    utmMedium: utm.medium,
    utmCampaign: utm.campaign,
    city: visit.place?.city ?? null,
  }
}

/** A language tag's first subtag (2 or 3 letters), then, when one follows the script or comes next, its region (2 letters or 3 digits). */
const LANGUAGE_TAG = /^([a-z]{2,3})(?:-[a-z]{4})?(?:-([a-z]{2}|\d{3}))?(?:-|$)/

/**
 * The first tag of an Accept-Language header, lower-cased, as language or language-region
 * (`fr-CH, fr;q=0.9` → `fr-ch`, `zh-Hant-TW` → `zh-tw`, `es-419` → `es-419`, `en_US` → `en-us`): a
 * script, variants and extensions are left out, so that one language has few values. `*`, an empty
 * header or a tag that does not start with a language is none.
 */
export function languageOf(header: string | undefined): string | null {
  if (header === undefined) return null
  let language = languages.get(header)
  if (language === undefined) languages.set(header, (language = parseLanguage(header) ?? NONE))
  return language === NONE ? null : language
}

// Visitors share few Accept-Language headers and destinations: each is parsed once while it is recent
// (a batch meets each again once per place and request it goes with). Bounded, as the User-Agents.
const languages = new LRUCache<string, string>({ max: 2000 })
const utms = new LRUCache<string, Utm>({ max: 2000 })
/** A header or location remembered as giving nothing (the cache holds no null). */
const NONE = ''

function parseLanguage(header: string): string | null {
  const comma = header.indexOf(',')
  const first = (comma === -1 ? header : header.slice(0, comma)).split(';', 1)[0] as string
  const tag = LANGUAGE_TAG.exec(first.trim().toLowerCase().replaceAll('_', '-'))
  if (tag === null) return null
  return tag[2] === undefined ? (tag[1] as string) : `${tag[1]}-${tag[2]}`
}

/** Longest UTM value kept: longer ones are cut (a breakdown value, not a place to store text). */
const UTM_LENGTH = 100
type Utm = { readonly source: string | null; readonly medium: string | null; readonly campaign: string | null }
const NO_UTM: Utm = { source: null, medium: null, campaign: null }

/**
 * The utm_source, utm_medium and utm_campaign of a destination URL (the first of each, trimmed, cut to
 * UTM_LENGTH characters; empty is none). Case is kept: the analytics tools that read them do.
 */
export function utmOf(location: string | undefined): Utm {
  if (location === undefined) return NO_UTM
  let utm = utms.get(location)
  if (utm === undefined) utms.set(location, (utm = parseUtm(location)))
  return utm
}

function parseUtm(location: string): Utm {
  const hash = location.indexOf('#')
  const end = hash === -1 ? location.length : hash
  const q = location.indexOf('?')
  if (q === -1 || q > end) return NO_UTM
  const params = new URLSearchParams(location.slice(q + 1, end))
  // A cut never leaves half of a surrogate pair.
  const value = (name: string) =>
    params
      .get(name)
      ?.trim()
      .slice(0, UTM_LENGTH)
      .replace(/[\uD800-\uDBFF]$/, '') || null
  return { source: value('utm_source'), medium: value('utm_medium'), campaign: value('utm_campaign') }
}

/** What a User-Agent tells (cached): no browser sends none, so a visit without one is a bot. Used by the statistics and the redirect's targeting rules. */
export const userAgentFacts = (userAgent: string | undefined): UserAgentFacts =>
  userAgent === undefined || userAgent === '' ? NO_USER_AGENT : describeUserAgent(userAgent)

/** The ISO country code in the trusted country header, if it holds one. */
export const countryOf = (header: string | undefined): string | null => (header !== undefined && COUNTRY.test(header) ? header.toUpperCase() : null)

/**
 * The visitor key: SHA-256 keyed with the day's secret 256-bit salt as a prefix, over IP and
 * User-Agent, cut to 132 bits (docs/adr/0008-visitor-key.md): one call of a native one-shot hash,
 * cheaper per visit than an HMAC object (docs/performance.md), and the same property: without the day's salt,
 * which is deleted after the day, nobody can tell which IP and User-Agent a key stands for.
 */
export const visitorKey = (daySalt: string, ip: string, userAgent: string): string =>
  hash('sha256', `${daySalt}\n${ip}\n${userAgent}`, 'base64url').slice(0, 22)

export interface UserAgentFacts {
  readonly bot: boolean
  readonly browser: string | null
  readonly os: string | null
  readonly device: string | null
}

/**
 * ua-parser-js 1.x (MIT; 2.x is AGPL) still spells two systems by their former names; the current
 * ones are what 2.x recorded before the switch, so breakdowns keep one row per system.
 */
const OS_NAMES: Record<string, string> = { 'Mac OS': 'macOS', 'Chromium OS': 'Chrome OS' }

// Parsing a User-Agent costs more CPU (isbot's and ua-parser-js's regular expressions) than the
// redirect itself, while a site's visitors share comparatively few User-Agents: remember the
// most recent ones. Bounded, so that a client sending a new User-Agent each time costs only misses.
const userAgents = new LRUCache<string, UserAgentFacts>({ max: 5000 })
const NO_USER_AGENT: UserAgentFacts = { bot: true, browser: null, os: null, device: null }

/**
 * Fetchers that isbot (5.x) takes for people, each in the fixture of classify.test.ts: Outlook
 * fetching a link for its preview, and Office applications checking a link before opening it.
 */
export const PREVIEW_FETCHERS = /^Microsoft Office\/|\bms-office\b/i

/** Whether a visit counts as a human one, as the statistics decide it: what a link's maxClicks counts. */
export const isHumanVisit = (userAgent: string | undefined, head: boolean): boolean => !head && !userAgentFacts(userAgent).bot

/** Cached, so cheap for a known User-Agent (the redirect's targeting rules read it too, through userAgentFacts). */
function describeUserAgent(userAgent: string): UserAgentFacts {
  let facts = userAgents.get(userAgent)
  if (facts === undefined) {
    const bot = isbot(userAgent) || PREVIEW_FETCHERS.test(userAgent)
    const ua = bot ? undefined : UAParser(userAgent)
    const browser = ua?.browser.name ?? null
    const os = ua?.os.name ?? null
    facts = { bot, browser, os: os === null ? null : (OS_NAMES[os] ?? os), device: ua?.device.type ?? (browser === null ? null : 'desktop') }
    userAgents.set(userAgent, facts)
  }
  return facts
}

/** The host of a Referer. */
export function referrerHost(referer: string | undefined): string | null {
  if (!referer) return null
  try {
    return new URL(referer).hostname.toLowerCase() || null
  } catch {
    return null
  }
}
