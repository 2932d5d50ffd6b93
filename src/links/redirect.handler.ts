import type { IncomingMessage, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { Config } from '../config.js'
import type { DomainsService } from '../domains/domains.service.js'
import type { Faults } from '../ops/faults.js'
import type { Clock } from '../shared/clock.js'
import { clientAddress, type TrustFunction } from '../http/client-address.js'
import { requestIdOf } from '../http/request-id.js'
import type { Metrics } from '../ops/metrics.js'
import type { ClickRecorder } from '../stats/clicks.js'
import { firstSegment, isReservedPath, QR_MARKER, type LinksService } from './links.service.js'
import type { RedirectCache, RedirectTarget } from './redirect.cache.js'

const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link not found</title></head>' +
  '<body style="font-family:system-ui,sans-serif;text-align:center;padding:4rem">' +
  '<h1>Link not found</h1><p>This short link does not exist or has been removed.</p></body></html>'
// The page has no script and only inline styles: nothing else may load or run in it.
const NOT_FOUND_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/**
 * The redirect, answered before Fastify's router runs (installed through `serverFactory`). It owns
 * every GET/HEAD whose first path segment is not one Linkline serves itself, on any host (and `/`
 * on custom domains), resolves (domain, path) from the cache or with one point query, answers, and
 * hands the visit to the click recorder. Returns false for requests it leaves to Fastify. Whatever
 * a link holds or a client sends, an exception fails this one request (a 500 page), never the process.
 */
export function createRedirectHandler(deps: {
  config: Pick<Config, 'notFoundUrl' | 'countryHeader'>
  /** The trust rule Fastify's `req.ip` follows too (http/client-address.ts). */
  trust: TrustFunction
  domains: DomainsService
  links: LinksService
  cache: RedirectCache
  clicks: ClickRecorder
  metrics: Metrics
  faults: Faults
  /** Stamps each visit: the container's clock, which tests move instead of sleeping. */
  clock: Clock
}) {
  const { config, trust, domains, links, cache, clicks, metrics, faults, clock } = deps

  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown, started: number) => {
    faults.failRequest('redirect', req, res, error)
    metrics.observeRedirect('error', started)
  }

  function answer(req: IncomingMessage, res: ServerResponse, target: RedirectTarget | false, query: string, started: number) {
    res.setHeader('X-Request-Id', requestIdOf(req))
    if (target) {
      const { location, qr } = query === '' ? { location: target.destination, qr: false } : applyVisitQuery(target.destination, query)
      res.writeHead(302, {
        Location: location,
        'Cache-Control': 'private, no-store',
        'Content-Length': '0',
      })
      res.end()
      clicks.record({
        linkId: target.linkId,
        at: clock.now(),
        qr,
        head: req.method === 'HEAD',
        ip: clientAddress(req, trust),
        userAgent: req.headers['user-agent'],
        referer: req.headers.referer,
        country: config.countryHeader === undefined ? undefined : header(req, config.countryHeader),
      })
    } else if (config.notFoundUrl !== undefined) {
      res.writeHead(302, { Location: config.notFoundUrl, 'Cache-Control': 'private, no-store', 'Content-Length': '0' })
      res.end()
    } else {
      res.writeHead(404, {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': NOT_FOUND_CSP,
        'Cache-Control': 'no-store',
        'Content-Length': Buffer.byteLength(NOT_FOUND_PAGE),
      })
      res.end(req.method === 'HEAD' ? undefined : NOT_FOUND_PAGE)
    }
    metrics.observeRedirect(target ? 'found' : 'not_found', started)
  }

  return function handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false
    const url = req.url ?? '/'
    // An absolute-form target is Fastify's to refuse (400).
    if (!url.startsWith('/')) return false
    const q = url.indexOf('?')
    let path = q === -1 ? url : url.slice(0, q)
    const host = domains.effectiveHost((req.headers.host ?? '').toLowerCase())
    // Reserved segments are the API's and the operators' on every host, custom domains included. No
    // link path holds a `%`, so an encoded first segment (`/%76%31/links`) goes to Fastify too, which
    // decodes, routes and authenticates it like the plain spelling.
    if ((path === '/' && domains.isDefault(host)) || isReservedPath(path) || firstSegment(path).includes('%')) return false
    const started = performance.now()
    res.setHeader('X-Content-Type-Options', 'nosniff')
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1)
    const query = q === -1 ? '' : url.slice(q + 1)
    const cached = cache.get(host, path)
    if (cached !== undefined) {
      try {
        answer(req, res, cached, query, started)
      } catch (error) {
        fail(req, res, error, started)
      }
    } else {
      links
        .lookup(host, path)
        .then(
          (target) => answer(req, res, target, query, started),
          () => {
            // The database failed: the redirect cannot be answered, but the API error shape is not for browsers.
            res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': '1' })
            res.end('Service temporarily unavailable')
            metrics.observeRedirect('error', started)
          },
        )
        .catch((error: unknown) => fail(req, res, error, started))
    }
    return true
  }
}

/**
 * The visit's query merged into the destination's (the visit's values win), parsed once: the QR
 * marker says whether the visit was a scan, and is dropped before the destination sees the query.
 */
function applyVisitQuery(destination: string, query: string): { location: string; qr: boolean } {
  const visit = new URLSearchParams(query)
  const qr = visit.has(QR_MARKER)
  visit.delete(QR_MARKER)
  if (visit.size === 0) return { location: destination, qr }
  const url = new URL(destination)
  for (const key of new Set(visit.keys())) url.searchParams.delete(key)
  for (const [key, value] of visit) url.searchParams.append(key, value)
  return { location: url.href, qr }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}
