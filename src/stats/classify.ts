import { createHmac } from 'node:crypto'
import { isbot } from 'isbot'
import { UAParser } from 'ua-parser-js'
import type { Visit } from './clicks.js'
import type { NewClickRow } from './stats.table.js'

export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS

const COUNTRY = /^[A-Za-z]{2}$/

/**
 * Turns a raw visit into the row that is stored: browser, OS and device type from the User-Agent
 * (ua-parser-js; a browser with no device type is a desktop), bot or human (isbot knows crawlers
 * and link-preview fetchers such as Slackbot, Twitterbot, facebookexternalhit and WhatsApp), the
 * referrer's host, an ISO country code when the trusted header carries one, and the visitor key:
 * HMAC(the day's salt, IP + User-Agent). The IP itself goes no further than this function.
 */
export function classify(visit: Visit, daySalt: string): NewClickRow {
  const userAgent = visit.userAgent ?? ''
  const bot = isbot(userAgent)
  const ua = bot ? undefined : UAParser(userAgent)
  const browser = ua?.browser.name ?? null
  return {
    link_id: visit.linkId,
    clicked_at: visit.at,
    is_bot: bot ? 1 : 0,
    is_qr: visit.qr ? 1 : 0,
    referrer: referrerHost(visit.referer),
    browser,
    os: ua?.os.name ?? null,
    device: ua?.device.type ?? (browser === null ? null : 'desktop'),
    country: visit.country !== undefined && COUNTRY.test(visit.country) ? visit.country.toUpperCase() : null,
    visitor_key: createHmac('sha256', daySalt).update(`${visit.ip ?? ''}\n${userAgent}`).digest('base64url').slice(0, 22),
  }
}

function referrerHost(referer: string | undefined): string | null {
  if (!referer) return null
  try {
    return new URL(referer).hostname.toLowerCase() || null
  } catch {
    return null
  }
}
