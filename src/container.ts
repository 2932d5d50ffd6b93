import type { FastifyBaseLogger } from 'fastify'
import { pino } from 'pino'
import { createMemoryInvalidationBus } from './cache/memory.js'
import { connectRedis } from './cache/redis.js'
import type { Config } from './config.js'
import { createConversationsRepository } from './conversations/conversations.repository.js'
import { createConversationsService } from './conversations/conversations.service.js'
import { createDomainsRepository } from './domains/domains.repository.js'
import { createDomainsService } from './domains/domains.service.js'
import { systemTxtResolver, type TxtResolver } from './domains/domains.verification.js'
import { pruneIdempotencyKeys } from './http/idempotency.js'
import { createLinksRepository } from './links/links.repository.js'
import { createLinksService } from './links/links.service.js'
import { createRedirectCache } from './links/redirect.cache.js'
import { createFaults } from './ops/faults.js'
import { createMetrics } from './ops/metrics.js'
import { systemClock, type Clock } from './shared/clock.js'
import { requestLogSerializer } from './http/client-address.js'
import { createPortingService } from './porting/porting.service.js'
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
  /** Where custom-domain verification looks TXT records up; by default `node:dns`. */
  txtResolver?: TxtResolver
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
  // On a terminal, lines for people (pino-pretty); anywhere else, JSON lines for a log pipeline.
  const logger: FastifyBaseLogger = options.logger ?? pino({
    level: config.logLevel,
    serializers: { req: requestLogSerializer(fullAddresses) },
    ...(process.stdout.isTTY ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } } : {}),
  })
  const metrics = createMetrics()
  const faults = createFaults({ logger, metrics })
  const redis = config.redisUrl === undefined
    ? undefined
    : connectRedis({ url: config.redisUrl, prefix: config.redisPrefix, logger, metrics, faults })
  const bus = redis?.bus ?? createMemoryInvalidationBus()
  // PostgreSQL without Redis may mean several instances and no way to hear of each other's writes:
  // no redirect cache then (docs/adr/0003-redirect-cache-across-instances.md).
  const shared = storage.dialect === 'postgres'
  const redirectCache = createRedirectCache(shared && !redis ? 0 : config.redirectCacheSize)

  const tokens = createTokensService({ repo: createTokensRepository(db), clock })
  const invalidateAll = async () => {
    redirectCache.clear()
    await bus.publishDomainsChanged()
  }
  const domains = createDomainsService({
    repo: createDomainsRepository(db),
    defaults: config.domains,
    reservedHosts: config.reservedHosts,
    listen: { host: config.host, port: config.port },
    verification: config.domainVerification,
    resolver: options.txtResolver ?? systemTxtResolver,
    linksOnDomain: (trx, name) => createLinksRepository(trx).anyOnDomain(name),
    clock,
    logger,
    onChange: invalidateAll,
  })
  const links = createLinksService({
    repo: createLinksRepository(db),
    domains,
    cache: redirectCache,
    clock,
    shortUrlScheme: config.shortUrlScheme,
    onInvalidate: (domain, path) => bus.publishLink(domain, path),
    onInvalidateAll: invalidateAll,
  })
  const conversations = createConversationsService({ repo: createConversationsRepository(db), links, clock })
  const stats = createStatsService({ repo: createStatsRepository(db, storage.dialect), links, clock, retentionDays: config.clickRetentionDays })
  const porting = createPortingService({ links, domains })
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
  let domainsCheck: NodeJS.Timeout | undefined
  let domainsChecking: Promise<unknown> | undefined
  let closed: Promise<number> | undefined

  return {
    config, clock, logger, storage, redis: redis?.client, metrics, faults, redirectCache, tokens, domains, links, conversations, clicks, stats, qr, porting,

    /** Migrates the database and loads what the redirect keeps in memory. */
    async start(): Promise<void> {
      await migrateToLatest(storage)
      await domains.load()
      clicks.start()
      maintenance = setInterval(faults.guard('timer', () => {
        const failed = (what: string) => (error: unknown) => logger.warn({ err: error }, `pruning ${what} failed; retried in an hour`)
        pruneIdempotencyKeys(db, clock.now()).catch(failed('idempotency keys'))
        stats.prune().catch(failed('old clicks'))
      }), MAINTENANCE_INTERVAL_MS).unref()
      if (config.domainVerification) {
        // One round at a time: a slow resolver must not pile rounds up.
        domainsCheck = setInterval(faults.guard('timer', () => {
          domainsChecking ??= domains.recheckPending()
            .catch((error: unknown) => logger.warn({ err: error }, 'checking pending domains failed; retried next period'))
            .finally(() => { domainsChecking = undefined })
        }), config.domainCheckIntervalMs).unref()
      }
      if (shared) domainsRefresh = setInterval(faults.guard('timer', () => void reloadDomains(false)), DOMAINS_REFRESH_MS).unref()
    },

    /**
     * Flushes buffered clicks (retrying until `deadline`, epoch ms, if the store fails) and closes
     * connections. Idempotent. Resolves to the number of buffered visits that had to be dropped.
     */
    close(deadline?: number): Promise<number> {
      closed ??= (async () => {
        clearInterval(maintenance)
        clearInterval(domainsRefresh)
        clearInterval(domainsCheck)
        await domainsChecking
        const dropped = await clicks.close(deadline)
        await writer.close()
        await qrRenderer.close()
        await bus.close()
        await storage.close()
        return dropped
      })()
      return closed
    },
  }
}
export type Container = ReturnType<typeof createContainer>
