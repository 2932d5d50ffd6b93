import type { FastifyBaseLogger } from 'fastify'
import { pino } from 'pino'
import { createMemoryInvalidationBus } from './cache/memory.js'
import { connectRedis } from './cache/redis.js'
import type { Config } from './config.js'
import { createConversationsRepository } from './conversations/conversations.repository.js'
import { createConversationsService } from './conversations/conversations.service.js'
import { createDomainsRepository } from './domains/domains.repository.js'
import { createDomainsService } from './domains/domains.service.js'
import { pruneIdempotencyKeys } from './http/idempotency.js'
import { createLinksRepository } from './links/links.repository.js'
import { createLinksService } from './links/links.service.js'
import { createRedirectCache } from './links/redirect.cache.js'
import { createMetrics } from './ops/metrics.js'
import { systemClock, type Clock } from './shared/clock.js'
import { requestLogSerializer } from './http/client-address.js'
import { createQrRenderer } from './qr/qr-render.pool.js'
import { createQrService } from './qr/qr.service.js'
import { startClickWriterThread } from './stats/click-writer.thread.js'
import { ClickBuffer, type ClickSink } from './stats/clicks.js'
import { createStatsRepository } from './stats/stats.repository.js'
import { createStatsService } from './stats/stats.service.js'
import { openStorage } from './storage/database.js'
import { migrateToLatest } from './storage/migrate.js'
import { createTokensRepository } from './tokens/tokens.repository.js'
import { createTokensService } from './tokens/tokens.service.js'

const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000
/** With several instances, custom domains are also reloaded on this period, should a broadcast be missed. */
const DOMAINS_REFRESH_MS = 10_000
// Most visits per write transaction. The larger the batch, the more visits share each rollup row
// (the writer's cost per visit halves from 1,000 to 40,000 visits of 10,000 links); the smaller, the
// shorter the writer holds SQLite's write lock, which an API write then waits for.
export const CLICK_BATCH_SIZE = 50_000

export interface ContainerOptions {
  clock?: Clock
  /** Where logs go (the CLI sends them to stderr); by default a pino logger on stdout. */
  logger?: FastifyBaseLogger
  /** Wraps the click sink (the batch writer), e.g. to inject write failures in tests. */
  wrapClickSink?: (sink: ClickSink) => ClickSink
}

/**
 * The one composition root: storage, clock, caches, repositories and services, shared by the HTTP
 * server and the CLI. Nothing else constructs a service.
 */
export function createContainer(config: Config, options: ContainerOptions = {}) {
  const clock = options.clock ?? systemClock
  const storage = openStorage(config)
  const db = storage.db
  // The one logger: Fastify's requests and the container's background work (Redis, reloads) share it.
  // Request logs carry client addresses cut to /24 or /48, in full only when debugging.
  const fullAddresses = config.logLevel === 'debug' || config.logLevel === 'trace'
  const logger: FastifyBaseLogger = options.logger ?? pino({ level: config.logLevel, serializers: { req: requestLogSerializer(fullAddresses) } })
  const metrics = createMetrics()
  const redis = config.redisUrl === undefined
    ? undefined
    : connectRedis({ url: config.redisUrl, prefix: config.redisPrefix, logger, metrics })
  const bus = redis?.bus ?? createMemoryInvalidationBus()
  // PostgreSQL without Redis may mean several instances and no way to hear of each other's writes:
  // no redirect cache then (docs/adr/0003-redirect-cache-across-instances.md).
  const shared = storage.dialect === 'postgres'
  const redirectCache = createRedirectCache(shared && !redis ? 0 : config.redirectCacheSize)

  const tokens = createTokensService({ repo: createTokensRepository(db), clock })
  const domains = createDomainsService({
    repo: createDomainsRepository(db),
    defaults: config.domains,
    clock,
    onChange: async () => {
      redirectCache.clear()
      await bus.publishDomainsChanged()
    },
  })
  const links = createLinksService({
    repo: createLinksRepository(db),
    domains,
    cache: redirectCache,
    clock,
    shortUrlScheme: config.shortUrlScheme,
    onInvalidate: (domain, path) => bus.publishLink(domain, path),
  })
  const conversations = createConversationsService({ repo: createConversationsRepository(db), links, clock })
  const stats = createStatsService({ repo: createStatsRepository(db, storage.dialect), links, clock, retentionDays: config.clickRetentionDays })
  const qrRenderer = createQrRenderer({ threads: config.qrThreads, queue: config.qrQueue })
  const qr = createQrService({ links, renderer: qrRenderer })
  const writer = startClickWriterThread({
    databaseUrl: config.databaseUrl,
    databaseStatementTimeoutMs: config.databaseStatementTimeoutMs,
    clickWriterNice: config.clickWriterNice,
  })
  const clicks = new ClickBuffer({
    sink: options.wrapClickSink ? options.wrapClickSink(writer.write) : writer.write,
    metrics,
    logger,
    capacity: config.clickBufferSize,
    batchSize: CLICK_BATCH_SIZE,
    intervalMs: config.clickFlushIntervalMs,
  })

  /** Reloads the custom domains, then drops cached targets: always when `force`, else if the set changed. */
  const reloadDomains = (force: boolean) =>
    domains.load().then(
      (changed) => (force || changed) && redirectCache.clear(),
      (error: unknown) => logger.warn({ err: error }, 'could not reload custom domains'),
    )
  bus.subscribe({
    link: (domain, path) => redirectCache.invalidate(domain, path),
    domainsChanged: () => void reloadDomains(true),
    listening: (listening) => redirectCache.setEnabled(listening),
  })

  let maintenance: NodeJS.Timeout | undefined
  let domainsRefresh: NodeJS.Timeout | undefined
  let closed: Promise<void> | undefined

  return {
    config, clock, logger, storage, redis: redis?.client, metrics, redirectCache, tokens, domains, links, conversations, clicks, stats, qr,

    /** Migrates the database and loads what the redirect keeps in memory. */
    async start(): Promise<void> {
      await migrateToLatest(storage)
      await domains.load()
      clicks.start()
      maintenance = setInterval(() => {
        const failed = (what: string) => (error: unknown) => logger.warn({ err: error }, `pruning ${what} failed; retried in an hour`)
        pruneIdempotencyKeys(db, clock.now()).catch(failed('idempotency keys'))
        stats.prune().catch(failed('old clicks'))
      }, MAINTENANCE_INTERVAL_MS).unref()
      if (shared) domainsRefresh = setInterval(() => void reloadDomains(false), DOMAINS_REFRESH_MS).unref()
    },

    /** Flushes buffered clicks and closes connections. Idempotent. */
    close(): Promise<void> {
      closed ??= (async () => {
        clearInterval(maintenance)
        clearInterval(domainsRefresh)
        await clicks.close()
        await writer.close()
        await qrRenderer.close()
        await bus.close()
        await storage.close()
      })()
      return closed
    },
  }
}
export type Container = ReturnType<typeof createContainer>
