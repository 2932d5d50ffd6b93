import type { IncomingMessage } from 'node:http'
import type { ClickSink } from '../stats/clicks.js'
import { countryOf, isHumanVisit, userAgentFacts } from '../stats/classify.js'
import type { LinkRule } from './links.schemas.js'

/**
 * What the redirect needs of a link's controls (docs/api/links.md#link-controls), built once when the target is cached.
 * A link that uses none has no `controls` at all, so that its redirect costs what it always did.
 */
export interface Controls {
  readonly expiresAt: number | undefined
  readonly maxClicks: number | undefined
  readonly expiredUrl: string | undefined
  readonly passwordHash: string | undefined
  readonly rules: readonly CompiledRule[] | undefined
  /** Human visits counted so far; present when maxClicks is. */
  readonly clicks: ClickCount | undefined
}

/**
 * The count that maxClicks is compared with: `base` (the stored count plus this instance's visits
 * not yet written, when it was read) and `local` (this instance's human visits since). Read again
 * when older than CLICK_COUNT_REFRESH_MS, before the visit is answered, to learn of other instances' visits.
 */
export interface ClickCount {
  base: number
  local: number
  readAt: number
  /** The read under way, if any. */
  refreshing: Promise<void> | undefined
}

export interface CompiledRule {
  readonly devices: ReadonlySet<string> | undefined
  readonly os: ReadonlySet<string> | undefined
  readonly countries: ReadonlySet<string> | undefined
  readonly languages: readonly string[] | undefined
  readonly destination: string
}

/** How stale a cached click count may get before the redirect reads it again (docs/api/redirect.md: the maxClicks bound). */
export const CLICK_COUNT_REFRESH_MS = 200

export interface ControlColumns {
  expires_at: number | null
  max_clicks: number | null
  expired_url: string | null
  password_hash: string | null
  rules: string | null
}

/** The controls of a stored link, or undefined when it uses none. */
export function compileControls(row: ControlColumns, storedClicks: number | undefined, now: number): Controls | undefined {
  const rules = row.rules === null ? undefined : (JSON.parse(row.rules) as LinkRule[])
  if (row.expires_at === null && row.max_clicks === null && row.password_hash === null && (rules === undefined || rules.length === 0)) return undefined
  return {
    expiresAt: row.expires_at ?? undefined,
    maxClicks: row.max_clicks ?? undefined,
    expiredUrl: row.expired_url ?? undefined,
    passwordHash: row.password_hash ?? undefined,
    rules: rules === undefined || rules.length === 0 ? undefined : rules.map(compileRule),
    clicks: row.max_clicks === null ? undefined : { base: storedClicks ?? 0, local: 0, readAt: now, refreshing: undefined },
  }
}

const lowerSet = (values: readonly string[] | undefined) => (values === undefined ? undefined : new Set(values.map((v) => v.toLowerCase())))

function compileRule(rule: LinkRule): CompiledRule {
  return {
    devices: lowerSet(rule.when.device),
    os: lowerSet(rule.when.os),
    countries: lowerSet(rule.when.country),
    languages: rule.when.language?.map((l) => l.toLowerCase()),
    destination: rule.destination,
  }
}

/** Whether the link is expired at `now`: past expiresAt, or maxClicks human visits counted. */
export const isExpired = (c: Controls, now: number): boolean =>
  (c.expiresAt !== undefined && now >= c.expiresAt) || (c.clicks !== undefined && c.maxClicks !== undefined && c.clicks.base + c.clicks.local >= c.maxClicks)

/** Another instance spent the link (the shared count said so): expired here too until the count is read again. */
export function markSpent(c: Controls): void {
  if (c.clicks !== undefined && c.maxClicks !== undefined) c.clicks.base = Math.max(c.clicks.base, c.maxClicks - c.clicks.local)
}

/**
 * The destination of the first rule whose every condition matches the visit, or undefined. Device
 * and OS come from the User-Agent as the statistics read it (ua-parser-js, cached per User-Agent),
 * the country from the trusted country header, the language from the first of Accept-Language's
 * preferred tags.
 */
export function matchRule(rules: readonly CompiledRule[], req: IncomingMessage, countryHeader: string | undefined): string | undefined {
  let facts: { os: string | undefined; device: string | undefined; ios: boolean; android: boolean } | undefined
  let country: string | null | undefined
  let language: string | null | undefined
  for (const rule of rules) {
    if (rule.devices !== undefined || rule.os !== undefined) {
      facts ??= ruleFacts(req.headers['user-agent'])
      if (rule.os !== undefined && (facts.os === undefined || !rule.os.has(facts.os))) continue
      if (rule.devices !== undefined && !matchesDevice(rule.devices, facts)) continue
    }
    if (rule.countries !== undefined) {
      if (country === undefined) country = ruleCountry(req, countryHeader)
      if (country === null || !rule.countries.has(country)) continue
    }
    if (rule.languages !== undefined) {
      if (language === undefined) language = preferredLanguage(req.headers['accept-language'])
      const lang = language
      if (lang === null || !rule.languages.some((l) => lang === l || lang.startsWith(`${l}-`))) continue
    }
    return rule.destination
  }
  return undefined
}

function ruleFacts(userAgent: string | undefined) {
  const described = userAgentFacts(userAgent)
  const os = described.os?.toLowerCase()
  return { os, device: described.device ?? undefined, ios: os === 'ios', android: os === 'android' }
}

function matchesDevice(devices: ReadonlySet<string>, facts: ReturnType<typeof ruleFacts>): boolean {
  return (facts.ios && devices.has('ios')) || (facts.android && devices.has('android')) || (facts.device !== undefined && devices.has(facts.device))
}

/** The visit's country as the statistics read it (classify.ts), lower-cased as rules hold them. */
function ruleCountry(req: IncomingMessage, header: string | undefined): string | null {
  if (header === undefined) return null
  const raw = req.headers[header]
  return countryOf(Array.isArray(raw) ? raw[0] : raw)?.toLowerCase() ?? null
}

/** The tag with the highest q in Accept-Language (the first of equals), lower-cased; null without one. */
export function preferredLanguage(header: string | undefined): string | null {
  if (header === undefined || header.length > 1024) return null
  let best: string | null = null
  let bestQ = 0
  for (const part of header.split(',')) {
    const [tag = '', ...params] = part.trim().split(';')
    const q = params.map((p) => /^\s*q=([01](\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    const weight = q === undefined ? 1 : Number(q)
    if (tag !== '' && tag !== '*' && weight > bestQ) {
      best = tag.toLowerCase()
      bestQ = weight
    }
  }
  return best
}

/**
 * This instance's share of maxClicks counting: the human visits of limited links that it recorded
 * and that are not rolled up yet. A visit is counted when the redirect records it and forgotten once
 * a roll-up has taken its batch, from then on part of the stored count (stats' rollups).
 */
export function createClickCounter() {
  const pending = new Map<string, number>()
  /**
   * Counted visits that are written but not rolled up yet (so not in the rollups that the limit reads),
   * per link, by the roll-up generation they were written in: a roll-up covers every batch written before it started.
   */
  const journaled = new Map<number, Map<string, number>>()
  let generation = 0
  const add = (counts: Map<string, number>, linkId: string, n: number) => {
    const left = (counts.get(linkId) ?? 0) + n
    if (left <= 0) counts.delete(linkId)
    else counts.set(linkId, left)
  }
  return {
    /** The redirect recorded a human visit of a limited link (and the click buffer counts it in its batch). */
    counted(linkId: string): void {
      add(pending, linkId, 1)
    },
    pending: (linkId: string): number => pending.get(linkId) ?? 0,
    /** The click sink, telling the counter which counted visits are rolled up (then the rollups count them). */
    wrapSink(sink: ClickSink): ClickSink {
      return {
        async write(batch) {
          const written = generation
          await sink.write(batch)
          if (batch.counted === undefined || batch.counted.size === 0) return
          let counts = journaled.get(written)
          if (counts === undefined) journaled.set(written, (counts = new Map()))
          for (const [linkId, n] of batch.counted) add(counts, linkId, n)
        },
        async rollUp(blocks) {
          const upTo = generation++
          await sink.rollUp(blocks)
          for (const [written, counts] of journaled) {
            if (written > upTo) continue
            for (const [linkId, n] of counts) add(pending, linkId, -n)
            journaled.delete(written)
          }
        },
        // Other writers' rows only: nothing this counter waits for.
        upkeep: () => sink.upkeep(),
      }
    },
  }
}
export type ClickCounter = ReturnType<typeof createClickCounter>

export { isHumanVisit }
