import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.js'
import type { LinkObject } from '../links/links.schemas.js'
import type { OutboundFetch } from '../outbound/outbound.js'
import type { Clock } from '../shared/clock.js'
import type { Storage } from '../storage/database.js'
import type { Principal } from '../tokens/tokens.service.js'
import type { EventRecorder } from '../webhooks/events.js'
import { createHealthRepository } from './health.repository.js'
import type { SweepResult } from './health.scheduler.js'
import { createHealthChecks } from './health.service.js'
import { startHealthChecker, type HealthChecker } from './health.thread.js'

/** How long a scrape of linkline_links_broken reuses the last count (one count query per this, however often scraped). */
export const BROKEN_COUNT_TTL_MS = 15_000

/** Test-only knobs of the checker (container options): shorter waits than production's. */
export interface HealthOptions {
  /** One check's whole exchange (default the guarded client's 10 s). */
  readonly timeoutMs?: number
  /** How often the background checker looks for due links (default 60 s). */
  readonly pollMs?: number
  /** Between two requests to one host (default 1 s). */
  readonly hostIntervalMs?: number
  /** How long the checker's lease holds without renewal (default 60 s). */
  readonly leaseMs?: number
}

/**
 * Destination health as the composition root builds it: the check-now of the API (on the serving
 * thread, through the container's guarded client), the background checker (started by server
 * processes only, when LINKLINE_HEALTH_INTERVAL_HOURS is not 0) and the count of broken links.
 */
export function createHealthFeature(
  deps: {
    config: Config
    storage: Storage
    clock: Clock
    logger: FastifyBaseLogger
    outbound: OutboundFetch
    events: EventRecorder
    /** The caller's link (404 for another workspace's): the links service, reached late. */
    getLink: (principal: Principal, id: string) => Promise<LinkObject>
    /** Wakes the webhook dispatcher after the thread recorded an event. */
    onRecorded: () => void
  },
  options: HealthOptions = {},
) {
  const { config, storage, clock, logger } = deps
  const repo = createHealthRepository(storage.db)
  const checks = createHealthChecks({
    db: storage.db,
    repo,
    outbound: deps.outbound,
    events: deps.events,
    shortUrlScheme: config.shortUrlScheme,
    now: () => clock.now(),
    timeoutMs: options.timeoutMs,
  })

  let cached: { at: number; count: Promise<number> } | undefined
  let checker: HealthChecker | undefined
  return {
    /** Live links whose destination is broken (the linkline_links_broken gauge): one count query per BROKEN_COUNT_TTL_MS at most. */
    brokenLinks(): Promise<number> {
      const now = clock.now()
      if (cached === undefined || now - cached.at >= BROKEN_COUNT_TTL_MS) cached = { at: now, count: repo.brokenCount() }
      const count = cached.count
      // A failed count is not kept: the next scrape asks again.
      count.catch(() => (cached = undefined))
      return count
    },

    /** Checks the caller's link now and answers it with its new health (404 when it is not the caller's). */
    async checkNow(principal: Principal, id: string): Promise<LinkObject> {
      const link = await deps.getLink(principal, id)
      await checks.check({ id: link.id, destination: link.destination })
      return deps.getLink(principal, id)
    },

    /** Starts the background checker's poll, unless LINKLINE_HEALTH_INTERVAL_HOURS is 0 (its thread runs for a sweep only). */
    start(): void {
      if (config.healthIntervalHours === 0 || checker) return
      checker = startHealthChecker(
        {
          databaseUrl: config.databaseUrl,
          databaseStatementTimeoutMs: config.databaseStatementTimeoutMs,
          fetchAllowPrivate: config.fetchAllowPrivate,
          shortUrlScheme: config.shortUrlScheme,
          timeoutMs: options.timeoutMs,
          schedule: {
            intervalMs: config.healthIntervalHours * 3_600_000,
            concurrency: config.healthConcurrency,
            hostIntervalMs: options.hostIntervalMs,
            leaseMs: options.leaseMs,
          },
        },
        {
          repo,
          now: () => clock.now(),
          pollMs: options.pollMs,
          onRecorded: deps.onRecorded,
          onError: (error) => logger.warn({ err: error }, 'checking link destinations failed; retried at the next poll'),
        },
      )
    },

    /** Has the background checker sweep now and says what it did; nothing when it is off. */
    sweep: (): Promise<SweepResult> => checker?.sweep() ?? Promise.resolve({ held: false, checked: 0 }),

    /** The checker's threads up now: one during a sweep, none between (none when it is off). */
    threads: (): number => checker?.threads() ?? 0,

    async close(): Promise<void> {
      await checker?.close()
      checker = undefined
    },
  }
}
export type HealthFeature = ReturnType<typeof createHealthFeature>
