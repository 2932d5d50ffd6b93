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
 * referrer's host, an ISO country code when the trusted header carries one, and the visitor key. The
 * IP goes no further than the visitor key.
 */

/** What a visit's request tells the statistics, each value as the redirect recorded it (undefined when absent). */
export interface RawVisit {
  readonly userAgent: string | undefined
  readonly referer: string | undefined
  readonly country: string | undefined
  readonly head: boolean
  readonly qr: boolean
}

/** A visit's profile: its value for each dimension (stats.dimensions.ts), and whether a bot or a QR scan made it. */
export function classifyVisit(visit: RawVisit): Profile {
  const facts = userAgentFacts(visit.userAgent)
  return {
    bot: facts.bot || visit.head,
    qr: visit.qr,
    referrer: referrerHost(visit.referer),
    browser: facts.browser,
    os: facts.os,
    device: facts.device,
    country: countryOf(visit.country),
  }
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
const PREVIEW_FETCHERS = /^Microsoft Office\/|\bms-office\b/i

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
