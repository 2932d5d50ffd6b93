import type { IncomingMessage, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { Config } from '../config.js'
import type { DomainsService } from '../domains/domains.service.js'
import type { Faults } from '../ops/faults.js'
import { clientAddress, type TrustFunction } from '../http/client-address.js'
import type { Metrics } from '../ops/metrics.js'
import type { Clock } from '../shared/clock.js'
import type { ClickRecorder, Visit } from '../stats/clicks.js'
import { isExpired, isHumanVisit, markSpent, matchRule, type Controls } from './link-controls.js'
import type { LinkResolver } from './link-resolver.js'
import { isPreviewCrawler, type Preview } from './link-previews.js'
import { createPasswordForm } from './redirect.password.js'
import type { RedirectCache, RedirectTarget } from './redirect.cache.js'
import { continuePage, passwordPage, previewPage, sendExpired, sendNotFound, sendPage, sendRedirect, writeHead } from './redirect.pages.js'
import { configuredPublicUrl } from '../http/public-url.js'
import type { SharedClickLimit } from './shared-click-limit.js'
import { firstSegment, QR_MARKER, RESERVED_SEGMENTS } from './short-paths.js'
import { isDatabaseUnavailable } from '../storage/errors.js'

/**
 * The redirect, answered before Fastify's router runs (installed through `serverFactory`). It owns
 * every GET/HEAD whose first path segment is not one Linkline serves itself, on any host (and `/`
 * on custom domains), resolves (domain, path) from the cache or with one point query, answers, and
 * hands the visit to the click recorder. Returns false for requests it leaves to Fastify. Whatever
 * a link holds or a client sends, an exception fails this one request (a 500 page), never the process.
 */
export function createRedirectHandler(deps: {
  config: Pick<Config, 'notFoundUrl' | 'countryHeader' | 'shortUrlScheme' | 'publicUrl' | 'host' | 'port'>
  /** The trust rule Fastify's `req.ip` follows too (http/client-address.ts). */
  trust: TrustFunction
  domains: DomainsService
  resolver: LinkResolver
  cache: RedirectCache
  /** maxClicks counted across instances, with Redis (shared-click-limit.ts). */
  sharedClickLimit?: SharedClickLimit
  clicks: ClickRecorder
  /** Counts a human visit to a path that names no link (stats/missing-paths.tally.ts). */
  countMissingPath?: (domain: string, path: string, at: number) => void
  metrics: Metrics
  faults: Faults
  /** Stamps each visit: the container's clock, which tests move instead of sleeping. */
  clock: Clock
  /** The password form's check, through the process's fair hashing queue (password-hashing.ts). */
  verifyPassword: (client: string, password: string, hash: string) => Promise<boolean>
  /** A lookup met the database unavailable: logged once per outage (storage/health.ts). */
  onDatabaseUnavailable: (error: unknown) => void
}) {
  const { config, trust, domains, resolver, cache, sharedClickLimit, clicks, metrics, faults, clock } = deps
  const passwordForm = createPasswordForm({ verify: deps.verifyPassword, trust })

  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown, started: number) => {
    faults.failRequest('redirect', req, res, error)
    metrics.observeRedirect('error', started)
  }

  /** The redirect itself, and the visit handed to the click recorder (`counted` towards maxClicks: admit). */
  function redirect(req: IncomingMessage, res: ServerResponse, target: RedirectTarget, destination: string, status: number, query: string, counted: boolean) {
    const visitQuery = query === '' ? undefined : applyVisitQuery(destination, query)
    const location = visitQuery?.location ?? destination
    sendRedirect(req, res, status, location)
    // A counted visit counts towards the limit once it is recorded (not dropped).
    if (clicks.record(visitOf(req, target, location, visitQuery?.qr ?? false), counted) && counted) resolver.countVisit(target)
  }

  /**
   * A link-preview crawler's visit of a link with a social preview: the card's page, rendered once per
   * cached target, which names the short URL and never the destination; recorded as the bot visit it is.
   */
  function sendPreview(req: IncomingMessage, res: ServerResponse, host: string, path: string, target: RedirectTarget, preview: Preview, query: string) {
    preview.page ??= previewPage(preview, `${config.shortUrlScheme}://${host}${path}`)
    sendPage(req, res, 200, preview.page)
    clicks.record(visitOf(req, target, target.destination, query !== '' && new URLSearchParams(query).has(QR_MARKER)), false)
  }

  /** The visit as the click recorder takes it; `location` is where it was sent (or would have been). */
  function visitOf(req: IncomingMessage, target: RedirectTarget, location: string, qr: boolean): Visit {
    return {
      linkId: target.linkId,
      at: clock.now(),
      qr,
      head: req.method === 'HEAD',
      ip: clientAddress(req, trust),
      userAgent: req.headers['user-agent'],
      referer: req.headers.referer,
      country: config.countryHeader === undefined ? undefined : header(req, config.countryHeader),
      acceptLanguage: req.headers['accept-language'],
      // The UTM breakdowns read the final location in the writer thread: here only a substring search, no parsing.
      utmLocation: location.includes('utm_') ? location : undefined,
      slot: target.clickSlot,
    }
  }

  /**
   * The visit of a link with controls that is neither expired nor behind a password (any more). A link
   * with maxClicks tells its destination only to a visit that counts: a bot, a client without
   * User-Agent or a HEAD gets the continue page instead; a person's visit takes its place in the
   * shared count first, with Redis (spent there: expired), else in this instance's.
   */
  function admit(req: IncomingMessage, res: ServerResponse, target: RedirectTarget, controls: Controls, status: number, path: string, query: string) {
    const destination = destinationFor(req, target, controls)
    const count = controls.clicks
    if (count === undefined || controls.maxClicks === undefined) return redirect(req, res, target, destination, status, query, false)
    if (!isHumanVisit(req.headers['user-agent'], req.method === 'HEAD')) return sendPage(req, res, 200, continuePage(path, query))
    if (sharedClickLimit === undefined) return redirect(req, res, target, destination, status, query, true)
    const started = performance.now()
    sharedClickLimit
      .take(target.linkId, controls.maxClicks, count.base + count.local)
      .then((taken) => {
        if (taken !== false) return redirect(req, res, target, destination, status, query, true)
        markSpent(controls)
        sendExpired(req, res, controls.expiredUrl)
      })
      .catch((error: unknown) => fail(req, res, error, started))
  }

  /** The destination the link's rules pick for this visit, else its own. */
  const destinationFor = (req: IncomingMessage, target: RedirectTarget, controls: Controls | undefined) =>
    (controls?.rules === undefined ? undefined : matchRule(controls.rules, req, config.countryHeader)) ?? target.destination

  /**
   * The database failed: the redirect cannot be answered, but the API error shape is not for browsers.
   * The outage is logged once, however many redirects and API requests meet it.
   */
  function lookupFailed(req: IncomingMessage, res: ServerResponse, error: unknown, started: number) {
    if (isDatabaseUnavailable(error)) deps.onDatabaseUnavailable(error)
    else faults.report('redirect', error)
    writeHead(req, res, 503, ['Content-Type', 'text/plain; charset=utf-8', 'Retry-After', '1'])
    res.end('Service temporarily unavailable')
    metrics.observeRedirect('error', started)
  }

  /** Where the dashboard is served: the public URL, else this default domain, else the first one (custom domains serve no dashboard). */
  const dashboardRoot = (host: string) => configuredPublicUrl(config) ?? `${config.shortUrlScheme}://${domains.isDefault(host) ? host : domains.primary}`

  /** No link at the path: the not-found answer, and a person's visit counted for the domain's owner (docs/api/analytics.md). */
  function notFound(req: IncomingMessage, res: ServerResponse, host: string, path: string, started: number) {
    sendNotFound(req, res, config.notFoundUrl)
    if (deps.countMissingPath !== undefined && isHumanVisit(req.headers['user-agent'], req.method === 'HEAD')) deps.countMissingPath(host, path, clock.now())
    metrics.observeRedirect('not_found', started)
  }

  /**
   * No link at the path. A path ending in `+` (which no link path may hold) is `<short URL>+`: the
   * public statistics page of the link at the path without it, when its statistics are public; it is
   * no visit of the link. Anything else, that too otherwise, is an ordinary missing path.
   */
  function missing(req: IncomingMessage, res: ServerResponse, host: string, path: string, started: number) {
    if (path.length < 3 || !path.endsWith('+')) return notFound(req, res, host, path, started)
    const toPage = (target: RedirectTarget | false) => {
      if (!target || target.publicStats !== true) return notFound(req, res, host, path, started)
      sendRedirect(req, res, 302, `${dashboardRoot(host)}/app/public/${encodeURIComponent(target.linkId)}`)
      metrics.observeRedirect('found', started)
    }
    const base = path.slice(0, -1)
    const cached = cache.get(host, base)
    if (cached !== undefined) return toPage(cached)
    resolver
      .lookup(host, base)
      .then(toPage, (error: unknown) => lookupFailed(req, res, error, started))
      .catch((error: unknown) => fail(req, res, error, started))
  }

  function answer(req: IncomingMessage, res: ServerResponse, host: string, target: RedirectTarget | false, path: string, query: string, started: number) {
    // A limited link's click count, when stale, is read again before the visit is answered.
    const refreshing = target && target.controls?.clicks !== undefined ? resolver.refreshClickCount(target, clock.now()) : undefined
    if (refreshing !== undefined) {
      refreshing.then(() => answer(req, res, host, target, path, query, started)).catch((error: unknown) => fail(req, res, error, started))
      return
    }
    if (target) {
      const controls = target.controls
      const preview = target.preview
      // A crawler gets the card of a link with a preview, unless the link is expired (docs/api/redirect.md#social-previews).
      if (preview !== undefined && isPreviewCrawler(req.headers['user-agent']) && (controls === undefined || !isExpired(controls, clock.now())))
        sendPreview(req, res, host, path, target, preview, query)
      // A link that uses no control: what the redirect always did, at the link's status.
      else if (controls === undefined) redirect(req, res, target, target.destination, target.status, query, false)
      // An expired link's visit is not recorded.
      else if (isExpired(controls, clock.now())) sendExpired(req, res, controls.expiredUrl)
      else if (controls.passwordHash !== undefined) sendPage(req, res, 200, passwordPage(''))
      else admit(req, res, target, controls, target.status, path, query)
    } else {
      return missing(req, res, host, path, started)
    }
    metrics.observeRedirect('found', started)
  }

  /**
   * The password form's POST to the short URL of a protected link: 303 to the destination (never
   * 307/308, which would send the password on to it) once the form is accepted (redirect.password.ts).
   */
  async function answerPost(
    req: IncomingMessage,
    res: ServerResponse,
    target: RedirectTarget,
    controls: Controls & { passwordHash: string },
    path: string,
    query: string,
  ) {
    await resolver.refreshClickCount(target, clock.now())
    if (isExpired(controls, clock.now())) return sendExpired(req, res, controls.expiredUrl)
    if (await passwordForm(req, res, target.linkId, controls.passwordHash)) admit(req, res, target, controls, 303, path, query)
  }

  /**
   * A POST to a short path is the password form's when the path is a protected link; any other goes
   * on to Fastify (`fallback`) as before the controls existed (404, 405, the anonymous limit), its
   * body unread until then.
   */
  function handlePost(req: IncomingMessage, res: ServerResponse, host: string, path: string, query: string, fallback: Fallback) {
    const cached = cache.get(host, path)
    const target = cached !== undefined ? Promise.resolve(cached) : resolver.lookup(host, path)
    target
      .then((t) => {
        const controls = t ? t.controls : undefined
        if (!t || controls?.passwordHash === undefined) return fallback(req, res)
        return answerPost(req, res, t, controls as Controls & { passwordHash: string }, path, query)
      })
      .catch((error: unknown) => faults.failRequest('redirect', req, res, error))
  }

  return function handle(req: IncomingMessage, res: ServerResponse, fallback?: Fallback): boolean {
    const post = req.method === 'POST' && fallback !== undefined
    if (req.method !== 'GET' && req.method !== 'HEAD' && !post) return false
    const url = req.url ?? '/'
    // An absolute-form target is Fastify's to refuse (400).
    if (!url.startsWith('/')) return false
    const q = url.indexOf('?')
    let path = q === -1 ? url : url.slice(0, q)
    const host = domains.effectiveHost((req.headers.host ?? '').toLowerCase())
    // Reserved segments are the API's and the operators' on every host, custom domains included. No
    // link path holds a `%`, so an encoded first segment (`/%76%31/links`) goes to Fastify too, which
    // decodes, routes and authenticates it like the plain spelling.
    const segment = firstSegment(path)
    if ((path === '/' && domains.isDefault(host)) || RESERVED_SEGMENTS.has(segment) || segment.includes('%')) return false
    const started = performance.now()
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1)
    const query = q === -1 ? '' : url.slice(q + 1)
    if (post) {
      handlePost(req, res, host, path, query, fallback)
      return true
    }
    const cached = cache.get(host, path)
    if (cached !== undefined) {
      try {
        answer(req, res, host, cached, path, query, started)
      } catch (error) {
        fail(req, res, error, started)
      }
    } else {
      resolver
        .lookup(host, path)
        .then(
          (target) => answer(req, res, host, target, path, query, started),
          (error: unknown) => lookupFailed(req, res, error, started),
        )
        .catch((error: unknown) => fail(req, res, error, started))
    }
    return true
  }
}

/** Where a request the redirect does not answer goes (Fastify's handler). */
type Fallback = (req: IncomingMessage, res: ServerResponse) => void

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
