import { AppError } from '../shared/errors.js'
import type { FastifyRequest } from 'fastify'
import { clientBlock } from './client-address.js'
import type { App } from './types.js'

const WINDOW_MS = 60_000
/** Addresses tracked per window; beyond it new addresses share one budget, so memory stays bounded. */
const MAX_TRACKED = 100_000

// Probes come from the load balancer's address, which clients may share when no proxy is trusted.
const PROBES = new Set(['/healthz', '/readyz'])

/** The 429 for a request from an address over its anonymous budget, else undefined; see registerAnonymousLimit. */
export type AnonymousLimit = (req: FastifyRequest) => AppError | undefined

/**
 * A budget per client address for requests answered without a valid token (401, 404, 405, 400, and
 * 5xx too: a request that makes the server fail must not cost its sender less; and every answer of a
 * route open to anyone that declares `config.anonymousBudget`, the public statistics), which the per-token
 * limit never sees. Over `max` in the current minute, the address gets 429 on every request that does
 * not authenticate, until the minute ends. Counted per process, on purpose: what it protects is this
 * process's event loop and database pool. The returned check is the auth hook's (auth.ts): it knows
 * whether a request authenticates, and an authenticated request is never refused.
 */
export function registerAnonymousLimit(app: App, max: number): AnonymousLimit {
  let windowStart = Date.now()
  let counts = new Map<string, number>()
  const current = (now: number) => {
    if (now - windowStart >= WINDOW_MS) {
      counts = new Map()
      windowStart = now
    }
    return counts
  }
  const isProbe = (req: FastifyRequest) => PROBES.has(req.routeOptions.url ?? '')

  app.addHook('onResponse', async (req, reply) => {
    const counted = reply.statusCode >= 400 || req.routeOptions.config.anonymousBudget === true
    if (req.principal || !counted || reply.statusCode === 429 || isProbe(req)) return
    const map = current(Date.now())
    let key = clientBlock(req.ip)
    if (!map.has(key) && map.size >= MAX_TRACKED) key = '*'
    map.set(key, (map.get(key) ?? 0) + 1)
  })

  return (req) => {
    const now = Date.now()
    if ((current(now).get(clientBlock(req.ip)) ?? 0) < max || isProbe(req)) return undefined
    const retry = String(Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000)))
    return new AppError(429, 'rate_limited', `over ${max} failed requests per minute without a valid token from this address; retry in ${retry} s`, undefined, {
      'Retry-After': retry,
    })
  }
}
