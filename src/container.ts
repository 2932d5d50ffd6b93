import type { FastifyBaseLogger } from 'fastify'
import { createAccountsRepository } from './accounts/accounts.repository.js'
import { createAccountsService, SIGN_IN_HASH_QUEUE, SIGN_IN_HASHES_PER_SECOND } from './accounts/accounts.service.js'
import { createMembersService } from './accounts/members.service.js'
import { createAuditRepository } from './audit/audit.repository.js'
import { createAuditService } from './audit/audit.service.js'
import { createMemoryInvalidationBus } from './cache/memory.js'
import { redisKeys } from './cache/keys.js'
import { connectRedis } from './cache/redis.js'
import type { Config } from './config.js'
import { createConversationsRepository } from './conversations/conversations.repository.js'
import { createConversationsService } from './conversations/conversations.service.js'
import { createDomainsRepository } from './domains/domains.repository.js'
import { createDomainsService } from './domains/domains.service.js'
import { systemTxtResolver, type TxtResolver } from './domains/domains.verification.js'
import { createOutboundFetch } from './outbound/outbound.js'
import { systemResolve, type Resolve } from './outbound/resolve.js'
import { createOneTimeLinkFlows, mailInvitation } from './invitations/flows.js'
import type { InvitationNotice } from './invitations/invitations.service.js'
import { createIdempotencyRepository } from './idempotency/idempotency.repository.js'
import { createIdempotencyService } from './idempotency/idempotency.service.js'
import { createClickCounter } from './links/link-controls.js'
import { createLinksRepository } from './links/links.repository.js'
import { createLinksBulk } from './links/links.bulk.js'
import { createLinkResolver } from './links/link-resolver.js'
import type { LinkWritesDeps } from './links/link-writes.js'
import { createLinksService } from './links/links.service.js'
import { createRedirectCache } from './links/redirect.cache.js'
import { createSharedClickLimit } from './links/shared-click-limit.js'
import { createPasswordHashing } from './shared/password-hashing.js'
import { createLowPriorityHashing } from './shared/scrypt-thread.js'
import { createMailer } from './mail/mailer.js'
import { createFaults } from './ops/faults.js'
import { createJobs } from './ops/jobs.js'
import { searchIndexerFor } from './links/search-indexer.js'
import { createLogger } from './ops/logger.js'
import { createMetrics } from './ops/metrics.js'
import { systemClock, type Clock } from './shared/clock.js'
import { createPortingService } from './porting/porting.service.js'
import { createQrRenderer } from './qr/qr-render.pool.js'
import { createQrService } from './qr/qr.service.js'
import { createQrLogoRepository } from './qr/qr-logo.repository.js'
import { createQrLogoService } from './qr/qr-logo.service.js'
import { startClickWriterThread, writerSettings } from './stats/click-writer.thread.js'
import { ClickBuffer, type ClickSink } from './stats/clicks.js'
import { CLICK_BATCH_SIZE, CLICK_BLOCK_VISITS, CLICK_ROLLUP_VISITS } from './stats/click-schedule.js'
import { createStatsRepository } from './stats/stats.repository.js'
import { createStatsService } from './stats/stats.service.js'
import { createMissingPaths } from './stats/missing-paths.js'
import { openStorage, type StorageOptions } from './storage/database.js'
import { createDatabaseHealth } from './storage/health.js'
import { migrateToLatest } from './storage/migrate.js'
import { createSessionsRepository } from './sessions/sessions.repository.js'
import { createSessionsService } from './sessions/sessions.service.js'
import { createSso } from './sso/sso.service.js'
import { createTokensRepository } from './tokens/tokens.repository.js'
import { createTokensService } from './tokens/tokens.service.js'
import { createTitleFetcher } from './titles/title-fetcher.js'
import { createHealthFeature, type HealthOptions } from './health/health.wiring.js'
import { sealStoredSecrets } from './webhooks/secret-key.js'
import { createWebhooksFeature } from './webhooks/webhooks.wiring.js'
import { transactional } from './storage/transaction.js'

export interface ContainerOptions {
  clock?: Clock
  /** Where logs go (the CLI sends them to stderr); by default a pino logger on stdout. */
  logger?: FastifyBaseLogger
  /** Wraps the click sink (the batch writer), e.g. to inject write failures in tests. */
  wrapClickSink?: (sink: ClickSink) => ClickSink
  /** How much older than the click block interval a crashed writer's journal rows must be to be adopted (default 60 s; tests shorten it). */
  staleJournalMs?: number
  /** Rows per batch of a deleted link's purge (tests lower it, to see a purge under way). */
  purgeBatch?: number
  /** Receives the serving SQLite writer connection, to make faults reproducible in tests (storage/database.ts). */
  sqliteWriter?: StorageOptions['sqliteWriter']
  /** Flushes the SQLite write-ahead log in place of fdatasync, to hold or fail a flush in tests (storage/wal-sync.ts). */
  walFlush?: StorageOptions['walFlush']
  /** Where custom-domain verification looks TXT records up; by default `node:dns`. */
  txtResolver?: TxtResolver
  /** How outbound requests (webhooks, titles, checks) resolve host names (and so which addresses they reach); by default `node:dns`. */
  outboundResolve?: Resolve
  /** The whole fetch of a destination page's title (default 10 s, the outbound client's); tests shorten it. */
  titleTimeoutMs?: number
  /** Shorter waits of the destination checker (health/health.wiring.ts); tests only. */
  health?: HealthOptions
  /** How long the redirect cache trusts a 404 (redirect.cache.ts); tests lengthen it to tell an invalidation from an expiry. */
  notFoundTtlMs?: number
  /** Between the starts of two sign-in password checks (default 500 ms: SIGN_IN_HASHES_PER_SECOND); test servers: 0. */
  signInHashIntervalMs?: number
  /** Told of every new invitation (to mail it); none by default. */
  notifyInvitation?: (invitation: InvitationNotice) => void
}

/** The one composition root (storage, clock, caches, repositories, services) of the HTTP server and the CLI: nothing else constructs a service. */
export function createContainer(config: Config, options: ContainerOptions = {}) {
  const clock = options.clock ?? systemClock
  const logger = options.logger ?? createLogger(config)
  const storage = openStorage(config, { sqliteWriter: options.sqliteWriter, walFlush: options.walFlush })
  const db = storage.db
  const databaseHealth = createDatabaseHealth({ storage, logger })
  const metrics = createMetrics()
  const faults = createFaults({ logger, metrics })
  const redis = config.redisUrl === undefined ? undefined : connectRedis({ url: config.redisUrl, prefix: config.redisPrefix, logger, metrics, faults })
  const bus = redis?.bus ?? createMemoryInvalidationBus()
  // Several instances without Redis have no way to hear of each other's writes: no redirect cache
  // then (docs/adr/0003-redirect-cache-across-instances.md).
  const shared = storage.adapter.sharedAcrossInstances
  const redirectCache = createRedirectCache(shared && !redis ? 0 : config.redirectCacheSize, { notFoundTtlMs: options.notFoundTtlMs })

  const outboundResolve = options.outboundResolve ?? systemResolve
  // The one client of every request Linkline makes (outbound/outbound.ts).
  const outbound = createOutboundFetch({ allowPrivate: config.fetchAllowPrivate, resolve: outboundResolve })
  const webhooksFeature = createWebhooksFeature({ config, storage, clock, logger, metrics, outbound, resolve: outboundResolve })
  const { repo: webhooksRepo, box: secretBox, dispatcher, events, webhooks } = webhooksFeature

  const tokens = createTokensService({ repo: createTokensRepository(db), clock })
  // Every change through the API and every sign-in (audit/); features that record outside a route call audit.record.
  const audit = createAuditService({ repo: createAuditRepository(db), clock, logger, onWriteFailed: (entries) => metrics.countAuditWriteFailures(entries) })
  // Link passwords' scrypt, in turn per owner and per client (shared/password-hashing.ts); people's, on
  // a lowest-priority thread of its own with a bounded queue, so a sign-in flood cannot take serving's core.
  const passwordHashing = createPasswordHashing()
  const accountHashing = createLowPriorityHashing({
    queueLimit: SIGN_IN_HASH_QUEUE,
    minIntervalMs: options.signInHashIntervalMs ?? 1000 / SIGN_IN_HASHES_PER_SECOND,
  })
  const accounts = createAccountsService({ repo: createAccountsRepository(db), hashing: accountHashing, clock })
  const sessions = createSessionsService({ repo: createSessionsRepository(db), tokens, accounts, clock })
  const members = createMembersService({
    transaction: transactional(db, createAccountsRepository),
    lock: storage.adapter.lockForTransaction,
    onLeft: async (userId, workspaceId) => {
      await sessions.endForUser(userId, { workspaceId })
      await tokens.revokeMadeBy(userId, workspaceId)
    },
    clock,
  })
  // Without LINKLINE_SMTP_URL the mailer sends nothing (enabled false): links are only in the answers.
  const mailer = createMailer({ url: config.smtpUrl, from: config.smtpFrom, logger })
  const notify = options.notifyInvitation ?? mailInvitation(mailer)
  const { invitations, passwordResets, setup } = createOneTimeLinkFlows({ db, accounts, sessions, clock, notify })
  const idempotency = createIdempotencyService({ repo: createIdempotencyRepository(db), clock })
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
    // Links depend on domains, so domains reach the links service late, through this closure.
    linksOnDomain: (name, trx) => links.anyOnDomain(name, trx),
    clock,
    logger,
    onChange: invalidateAll,
  })
  const writer = startClickWriterThread(writerSettings(config, options.staleJournalMs, options.purgeBatch), {
    purge: (error) => logger.warn({ err: error }, 'purging deleted links failed; retried on the next delete or within the hour'),
    geoip: (error) =>
      logger.error({ err: error }, 'the IP database (LINKLINE_GEOIP_DB) could not be opened: visits are recorded without its countries and cities'),
  })
  // Deleted links are purged in the writer thread, off the event loop (links/links.purger.ts).
  const purger = writer.purger
  const statsRepo = createStatsRepository(db, storage.adapter)
  // maxClicks: this instance's human visits of limited links until they are written (link-controls.ts).
  const clickCounter = createClickCounter()
  const linksRepo = createLinksRepository(db, storage.adapter)
  const linkWrites: LinkWritesDeps = {
    repo: linksRepo,
    hashPassword: passwordHashing.hash,
    domains,
    cache: redirectCache,
    clock,
    shortUrlScheme: config.shortUrlScheme,
    onInvalidate: (domain, path) => bus.publishLink(domain, path),
    onInvalidateAll: invalidateAll,
    onDeleted: purger.kick,
    events,
    audit: audit.inTransaction, // link creates write their entries with the links
    transaction: transactional(db, (trx) => createLinksRepository(trx, storage.adapter)),
    onUntitled: config.pageTitles ? (link) => titles.enqueue(link) : undefined,
  }
  const links = createLinksService(linkWrites)
  const linksBulk = createLinksBulk(linkWrites)
  // Titles of links created without one, from their pages, in the background (titles/).
  const titles = createTitleFetcher({ outbound, logger, fill: (id, title) => links.fillPageTitle(id, title), timeoutMs: options.titleTimeoutMs })
  // Destination checks: now through the API, and in the background in a thread of its own (health/).
  const health = createHealthFeature(
    { config, storage, clock, logger, outbound, events, getLink: links.get, onRecorded: () => dispatcher.kick() },
    options.health,
  )
  metrics.watchBrokenLinks(health.brokenLinks)
  const linkResolver = createLinkResolver({
    repo: linksRepo,
    cache: redirectCache,
    countHumanClicks: (linkId) => statsRepo.humanClicks(linkId),
    clickCounter,
  })
  // maxClicks across instances: one atomic count per limited link in Redis, where there is one.
  const sharedClickLimit =
    redis && createSharedClickLimit({ redis: redis.client, keyPrefix: redisKeys(config.redisPrefix).clickLimit, onError: () => metrics.countRedisError() })
  const conversations = createConversationsService({ repo: createConversationsRepository(db, storage.adapter), links, clock, events })
  const stats = createStatsService({ repo: statsRepo, links, clock, retentionDays: config.clickRetentionDays, freshen: () => clicks.freshen() })
  const missingPaths = createMissingPaths({ db, domains, clock, config, logger, faults })
  const porting = createPortingService({ links: linksBulk, domains })
  const qrRenderer = createQrRenderer({ threads: config.qrThreads, queue: config.qrQueue, perOwner: config.qrPerOwner })
  const qrLogos = createQrLogoService({ repo: createQrLogoRepository(db), clock })
  const qr = createQrService({ links, logos: qrLogos, renderer: qrRenderer })
  const clicks = new ClickBuffer({
    sink: clickCounter.wrapSink(options.wrapClickSink ? options.wrapClickSink(writer.sink) : writer.sink),
    metrics,
    logger,
    capacity: config.clickBufferSize,
    batchSize: CLICK_BATCH_SIZE,
    intervalMs: config.clickFlushIntervalMs,
    rollupIntervalMs: config.clickRollupIntervalMs,
    rollupVisits: CLICK_ROLLUP_VISITS,
    blockIntervalMs: config.clickBlockIntervalMs,
    blockVisits: CLICK_BLOCK_VISITS,
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
  const jobs = createJobs({
    clicks,
    missingPaths,
    dispatcher,
    purger,
    searchIndexer: searchIndexerFor(storage, logger),
    prunes: {
      'idempotency keys': () => idempotency.prune(),
      'old clicks': () => stats.prune(),
      'old visits to missing paths': () => missingPaths.service.prune(),
      'ended sessions': () => sessions.prune(),
      'old audit log entries': () => audit.prune(),
      'old webhook deliveries': () => webhooksRepo.prune(clock.now() - config.webhooksRetentionDays * 86_400_000),
    },
    recheckDomains: config.domainVerification ? { run: () => domains.recheckPending(), everyMs: config.domainCheckIntervalMs } : undefined,
    reloadDomains: shared ? () => reloadDomains(false) : undefined,
    logger,
    faults,
  })

  /** Migrates the database and loads what the services keep in memory: all that a CLI command needs (no background work, no Redis). */
  async function prepare(): Promise<void> {
    const applied = await migrateToLatest(storage)
    // A schema change is worth a line of its own in the start log: it is when an upgrade happened.
    if (applied.length > 0) logger.info({ migrations: applied }, `applied ${applied.length} database migration(s), the last ${applied.at(-1)}`)
    await domains.load()
  }

  let closed: Promise<number> | undefined

  return {
    config,
    clock,
    logger,
    storage,
    databaseHealth,
    redis: redis?.client,
    metrics,
    faults,
    redirectCache,
    outbound,
    sharedClickLimit,
    passwordHashing,
    accountHashing,
    tokens,
    audit,
    accounts,
    members,
    sessions,
    sso: createSso(config.oidc, { accounts, logger, clock, key: () => secretBox.deriveKey('oidc pending') }),
    invitations,
    passwordResets,
    setup,
    idempotency,
    domains,
    links,
    linksBulk,
    titles,
    health,
    linkResolver,
    purger,
    conversations,
    clicks,
    stats,
    missingPaths,
    qr,
    qrLogos,
    porting,
    webhooks,
    mailer,
    prepare,

    /**
     * Opens the Redis connections (when REDIS_URL is set), resolving once the first attempt is over,
     * connected or not: a CLI command whose writes other instances must hear of (domains rename).
     */
    connectRedis: async (): Promise<void> => redis?.connect(),

    /**
     * For a server: prepare(), then connect to Redis and start the background work (the click
     * flusher, maintenance, domain checks: ops/jobs.ts). Constructing the container does none of this.
     */
    async start(): Promise<void> {
      await prepare()
      // A file restored as another user reads fine and fails every write: said now, and /readyz says 503.
      await databaseHealth.checkWrites()
      await sealStoredSecrets({ repo: webhooksRepo, box: secretBox, logger })
      // Not awaited: a server starts without Redis, and its connections keep trying.
      void redis?.connect()
      jobs.start()
      health.start()
    },

    /**
     * Flushes buffered clicks (retrying until `deadline`, epoch ms, if the store fails) and closes
     * connections. Idempotent. Resolves to the number of buffered visits that had to be dropped.
     */
    close(deadline?: number): Promise<number> {
      closed ??= (async () => {
        await jobs.stop()
        titles.close()
        await health.close()
        const dropped = await clicks.close(deadline)
        await writer.close()
        await qrRenderer.close()
        await accountHashing.close()
        await bus.close()
        databaseHealth.close()
        await storage.close()
        return dropped
      })()
      return closed
    },
  }
}
export type Container = ReturnType<typeof createContainer>
