import type { IncomingMessage, ServerResponse } from 'node:http'
import { LRUCache } from 'lru-cache'
import { clientAddress, clientBlock, type TrustFunction } from '../http/client-address.js'
import { HashingBusy } from '../shared/password-hashing.js'
import { passwordPage, sendPage } from './redirect.pages.js'

/** Wrong passwords allowed per link and client (an IPv4 address or an IPv6 /64) within WINDOW_MS, before 429. */
export const PASSWORD_TRIES = 10
const WINDOW_MS = 15 * 60 * 1000

/**
 * The password form's guard: a wrong password counts against the link and the client (its address
 * block: http/client-address.ts), and
 * past PASSWORD_TRIES within the window every try is refused before any hash is computed (a correct
 * password too), until the window ends. Kept in this process (bounded: the least recent pairs go
 * first); with several instances each keeps its own count (docs/api/redirect.md#password).
 */
function createPasswordGate(verify: (client: string, password: string, hash: string) => Promise<boolean>) {
  // Bounded by maxSize rather than max: with max, lru-cache allocates its arrays for 100,000 entries up
  // front (~3 MB and ~15 ms at every start) although most servers never count a wrong password.
  const failures = new LRUCache<string, { count: number; until: number }>({ maxSize: 100_000, sizeCalculation: () => 1 })
  const key = (linkId: string, client: string) => `${linkId}\n${client}`

  return {
    /** Seconds until the pair may try again; 0 when it may now. */
    blockedFor(linkId: string, client: string, now = Date.now()): number {
      const entry = failures.get(key(linkId, client))
      if (entry === undefined || entry.until <= now) return 0
      return entry.count >= PASSWORD_TRIES ? Math.ceil((entry.until - now) / 1000) : 0
    },
    /**
     * Whether the password matches. Every try counts before the hash is computed, and a right one is
     * taken back afterwards: tries sent all at once cannot get past the limit while their hashes run.
     */
    async check(linkId: string, client: string, password: string, hash: string, now = Date.now()): Promise<boolean> {
      const k = key(linkId, client)
      let entry = failures.get(k)
      if (entry === undefined || entry.until <= now) {
        entry = { count: 0, until: now + WINDOW_MS }
        failures.set(k, entry)
      }
      entry.count++
      let right: boolean
      try {
        right = password.length > 0 && (await verify(client, password, hash))
      } catch (error) {
        // Refused before any hash ran (too many waiting): not a wrong password.
        entry.count--
        throw error
      }
      if (right) entry.count--
      return right
    },
  }
}

/**
 * Whether a form POST comes from a page of another site: a browser says so in Sec-Fetch-Site (only
 * `same-origin`, or `none` for a request the person made, is the form's own: `same-site` may be
 * another owner's custom domain under the same parent), else an Origin naming another host. Such a
 * POST is refused before it counts, so that no page elsewhere can spend a visitor's tries from the
 * visitor's browser. `Origin: null` (sent by the form itself under `Referrer-Policy: no-referrer` by
 * browsers old enough to lack Sec-Fetch-Site) and clients sending neither header pass.
 */
export function isCrossSiteForm(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site']
  if (site !== undefined) return site !== 'same-origin' && site !== 'none'
  const origin = req.headers.origin
  if (origin === undefined || origin === 'null') return false
  return !URL.canParse(origin) || new URL(origin).host !== (req.headers.host ?? '').toLowerCase()
}

const PASSWORD_BODY_LIMIT = 4096

/**
 * The password form's POST to the short URL of a protected link: whether it carries the link's
 * password. Every other outcome is answered here, with the form again: 415 and 413 for a body that
 * is not the form's, 403 for a POST from another site's page (before it counts), 429 past the tries
 * allowed per link and client address block (or while too many hashes wait), 401 for a wrong password.
 */
export function createPasswordForm(deps: {
  /** The check of a password against its hash, through the process's fair hashing queue (password-hashing.ts). */
  verify: (client: string, password: string, hash: string) => Promise<boolean>
  /** The trust rule Fastify's `req.ip` follows too (http/client-address.ts). */
  trust: TrustFunction
}) {
  const gate = createPasswordGate(deps.verify)
  return async function accepts(req: IncomingMessage, res: ServerResponse, linkId: string, passwordHash: string): Promise<boolean> {
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
    if (contentType !== 'application/x-www-form-urlencoded') return refuse(req, res, 415, 'Send the form as application/x-www-form-urlencoded.')
    const body = await readBody(req, PASSWORD_BODY_LIMIT)
    if (body === undefined) {
      res.setHeader('Connection', 'close')
      return refuse(req, res, 413, 'The form is too large.')
    }
    if (isCrossSiteForm(req)) return refuse(req, res, 403, 'This form can only be sent from its own page. Enter the password here.')
    const address = clientAddress(req, deps.trust)
    const client = address === undefined ? 'unknown' : clientBlock(address)
    const retryAfter = gate.blockedFor(linkId, client)
    if (retryAfter > 0) {
      res.setHeader('Retry-After', String(retryAfter))
      return refuse(req, res, 429, 'Too many wrong passwords. Try again later.')
    }
    const password = new URLSearchParams(body).get('password') ?? ''
    let right: boolean
    try {
      right = await gate.check(linkId, client, password, passwordHash)
    } catch (error) {
      if (!(error instanceof HashingBusy)) throw error
      res.setHeader('Retry-After', '1')
      return refuse(req, res, 429, 'Too many tries at once. Try again in a moment.')
    }
    return right || refuse(req, res, 401, 'Wrong password.')
  }
}

/** The form again, with the reason it was not accepted. */
function refuse(req: IncomingMessage, res: ServerResponse, status: number, message: string): false {
  sendPage(req, res, status, passwordPage(message))
  return false
}

/** The request body as text, or undefined beyond `limit` bytes (reading stops there). */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        req.removeAllListeners('data')
        req.pause()
        resolve(undefined)
      } else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}
