import { performance } from 'node:perf_hooks'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { CountedHistogram } from './counted-histogram.js'

type RedirectOutcome = 'found' | 'not_found' | 'error'
/** Where an exception was contained instead of ending the process (ops/faults.ts). */
export type FaultSite = 'redirect' | 'server' | 'redis' | 'timer' | 'uncaught_exception' | 'unhandled_rejection'
const FAULT_SITES: FaultSite[] = ['redirect', 'server', 'redis', 'timer', 'uncaught_exception', 'unhandled_rejection']

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

/** How often the event-loop delay is sampled (nodejs_eventloop_lag_*). */
const EVENT_LOOP_SAMPLE_MS = 100

/**
 * prom-client's nodejs_eventloop_lag_{min,max,mean,p50,p90,p99}_seconds report what
 * monitorEventLoopDelay records: the time between two of its timer's ticks, so an idle loop reads the
 * sampling interval (100 ms) instead of no lag. The same gauges here report that time minus the
 * interval: how late each tick was (the stddev is the same either way, and stays prom-client's).
 */
function watchEventLoopDelay(registry: Registry): void {
  const histogram = monitorEventLoopDelay({ resolution: EVENT_LOOP_SAMPLE_MS })
  histogram.enable()
  const late = (ns: number) => (Number.isFinite(ns) ? Math.max(0, ns / 1e6 - EVENT_LOOP_SAMPLE_MS) / 1000 : 0)
  const reads: [string, () => number][] = [
    ['min', () => histogram.min],
    ['max', () => histogram.max],
    ['mean', () => histogram.mean],
    ['p50', () => histogram.percentile(50)],
    ['p90', () => histogram.percentile(90)],
    ['p99', () => histogram.percentile(99)],
  ]
  reads.forEach(([stat, read], i) => {
    const name = `nodejs_eventloop_lag_${stat}_seconds`
    registry.removeSingleMetric(name)
    new Gauge({
      name,
      help: `The ${stat} of how late the event loop ran a timer since the last scrape, in seconds.`,
      registers: [registry],
      collect() {
        this.set(late(read()))
        // The last of them starts the next period.
        if (i === reads.length - 1) histogram.reset()
      },
    })
  })
}

/** Every Prometheus metric, on a registry of its own (so that several apps can live in one process). */
export function createMetrics() {
  const registry = new Registry()
  // The event-loop delay is sampled by a libuv timer: prom-client's default (every 10 ms) keeps an idle
  // server busy waking up (docs/performance.md, "The redirect path"); ten samples a second are plenty for
  // a gauge scraped every few seconds, and a stall still shows in full (a late timer measures it).
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS })
  watchEventLoopDelay(registry)
  const httpRequests = new Counter({
    name: 'linkline_http_requests_total',
    help: 'API and operational requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  })
  const httpDuration = new Histogram({
    name: 'linkline_http_request_duration_seconds',
    help: 'API and operational request latency',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  // The redirect is the hot path: a labelled prom-client inc() hashes its labels on every call, so
  // redirects are counted in plain numbers and handed to the counter when /metrics is scraped.
  const redirectCounts: Record<RedirectOutcome, number> = { found: 0, not_found: 0, error: 0 }
  new Counter({
    name: 'linkline_redirects_total',
    help: 'Redirect requests, by outcome (found, not_found, error)',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      for (const outcome of Object.keys(redirectCounts) as RedirectOutcome[]) {
        this.inc({ outcome }, redirectCounts[outcome])
        redirectCounts[outcome] = 0
      }
    },
  })
  const redirectDuration = new CountedHistogram({
    name: 'linkline_redirect_duration_seconds',
    help: 'Redirect latency, from the request to the response',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  const redisUp = new Gauge({
    name: 'linkline_redis_up',
    help: '1 while every Redis connection is ready; 0 while one is down or reconnecting, and without REDIS_URL',
    registers: [registry],
  })
  const auditWriteFailures = new Counter({
    name: 'linkline_audit_write_failures_total',
    help: 'Audit log entries that could not be written (each failure is logged with its entries); the changes themselves were made',
    registers: [registry],
  })
  const redisErrors = new Counter({
    name: 'linkline_redis_errors_total',
    help: 'Redis connection errors and invalidations that could not be published',
    registers: [registry],
  })
  const clicksRecorded = new Counter({
    name: 'linkline_clicks_recorded_total',
    help: 'Visits written to the database by the click flusher',
    registers: [registry],
  })
  const clicksDropped = new Counter({
    name: 'linkline_clicks_dropped_total',
    help: 'Visits lost: buffer_full (the database is slow or down and the buffer is at its bound), shutdown (the last flush failed)',
    labelNames: ['reason'] as const,
    registers: [registry],
  })
  // Exported at 0 from the start, so that alerts on increase() see the first drop.
  for (const reason of ['buffer_full', 'shutdown']) clicksDropped.inc({ reason }, 0)
  const faults = new Counter({
    name: 'linkline_faults_total',
    help: 'Exceptions contained outside the API error handler, by site: the request failed alone and the process kept serving',
    labelNames: ['site'] as const,
    registers: [registry],
  })
  for (const site of FAULT_SITES) faults.inc({ site }, 0)
  const clickFlushes = new Histogram({
    name: 'linkline_click_flush_duration_seconds',
    help: 'Duration of one click batch write, by outcome (ok, error)',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  const clickRollups = new Histogram({
    name: 'linkline_click_rollup_duration_seconds',
    help: 'Duration of one roll-up of the click journal into the statistics, by outcome (ok, error)',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  // Read when /metrics is scraped, not pushed on every visit (the buffer is fed by the redirect).
  let clickBufferSize = () => 0
  new Gauge({
    name: 'linkline_click_buffer_size',
    help: 'Visits waiting in the in-process buffer (including the batch being written)',
    registers: [registry],
    collect() {
      this.set(clickBufferSize())
    },
  })
  let clickJournalSize = () => 0
  new Gauge({
    name: 'linkline_click_journal_size',
    help: 'Visits this instance wrote to the click journal that are not rolled up into the statistics yet (including the roll-up under way)',
    registers: [registry],
    collect() {
      this.set(clickJournalSize())
    },
  })
  let clickBlocksPending = () => 0
  new Gauge({
    name: 'linkline_click_blocks_pending',
    help: 'Visits this instance wrote that are not in the clicks export yet: their click blocks are written every LINKLINE_CLICK_BLOCK_INTERVAL_MS (including a roll-up under way that writes them)',
    registers: [registry],
    collect() {
      this.set(clickBlocksPending())
    },
  })
  const webhookDeliveries = new Counter({
    name: 'linkline_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: delivered (2xx), retry (failed, retried later), refused (a private address, retried later), failed (the last attempt failed; given up)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  for (const outcome of ['delivered', 'retry', 'refused', 'failed']) webhookDeliveries.inc({ outcome }, 0)
  // Read from the database when /metrics is scraped: the outbox is shared by every instance.
  let webhookBacklog: () => Promise<number> = async () => 0
  new Gauge({
    name: 'linkline_webhook_outbox_backlog',
    help: 'Webhook deliveries not settled yet (due, leased or waiting for a retry), all instances together',
    registers: [registry],
    async collect() {
      this.set(await webhookBacklog().catch(() => Number.NaN))
    },
  })
  // Read from the database when /metrics is scraped (health/health.wiring.ts caches the count briefly).
  let brokenLinks: () => Promise<number> = async () => 0
  new Gauge({
    name: 'linkline_links_broken',
    help: 'Live links whose destination is broken (two failed checks in a row), every workspace together',
    registers: [registry],
    async collect() {
      this.set(await brokenLinks().catch(() => Number.NaN))
    },
  })

  return {
    registry,
    observeHttp(method: string, route: string, status: number, seconds: number) {
      httpRequests.inc({ method, route, status })
      httpDuration.observe({ method, route }, seconds)
    },
    /** `started` is a performance.now() reading (a double: no BigInt allocated per redirect). */
    observeRedirect(outcome: RedirectOutcome, started: number) {
      redirectCounts[outcome]++
      redirectDuration.count((performance.now() - started) / 1000)
    },
    setRedisUp(up: boolean) {
      redisUp.set(up ? 1 : 0)
    },
    countAuditWriteFailures(entries: number) {
      auditWriteFailures.inc(entries)
    },
    countRedisError() {
      redisErrors.inc()
    },
    observeClickFlush(outcome: 'ok' | 'error', written: number, seconds: number) {
      clickFlushes.observe({ outcome }, seconds)
      clicksRecorded.inc(written)
    },
    observeClickRollup(outcome: 'ok' | 'error', seconds: number) {
      clickRollups.observe({ outcome }, seconds)
    },
    dropClicks(reason: 'buffer_full' | 'shutdown', count: number) {
      clicksDropped.inc({ reason }, count)
    },
    countFault(site: FaultSite) {
      faults.inc({ site })
    },
    watchClickBuffer(buffered: () => number, journaled: () => number, unblocked: () => number) {
      clickBufferSize = buffered
      clickJournalSize = journaled
      clickBlocksPending = unblocked
    },
    countWebhookDelivery(outcome: 'delivered' | 'retry' | 'refused' | 'failed') {
      webhookDeliveries.inc({ outcome })
    },
    watchWebhookBacklog(count: () => Promise<number>) {
      webhookBacklog = count
    },
    watchBrokenLinks(count: () => Promise<number>) {
      brokenLinks = count
    },
  }
}
export type Metrics = ReturnType<typeof createMetrics>
