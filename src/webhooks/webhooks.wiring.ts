import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.js'
import type { Metrics } from '../ops/metrics.js'
import type { OutboundFetch } from '../outbound/outbound.js'
import type { Resolve } from '../outbound/resolve.js'
import type { Clock } from '../shared/clock.js'
import type { Storage } from '../storage/database.js'
import { createDispatcher } from './dispatcher.js'
import { readOrCreateKeyFile } from './secret-key.js'
import { createSecretBox } from './signing.js'
import { createWebhooksRepository } from './webhooks.repository.js'
import { createEventRecorder, createWebhooksService } from './webhooks.service.js'

/**
 * The webhooks feature as the composition root (container.ts) builds it: the outbox, the secret box,
 * the dispatcher (started by server processes only: jobs), the event recorder every feature records
 * its changes with, and the service of the routes.
 */
export function createWebhooksFeature(deps: {
  config: Config
  storage: Storage
  clock: Clock
  logger: FastifyBaseLogger
  metrics: Metrics
  /** The guarded outbound client that deliveries go through. */
  outbound: OutboundFetch
  /** How a URL's host is checked at creation (the client's own resolver). */
  resolve: Resolve
}) {
  const { config, storage, clock, logger, metrics } = deps
  const repo = createWebhooksRepository(storage.db, storage.adapter)
  // Without LINKLINE_WEBHOOKS_SECRET_KEY, a key file beside the data (created at the first start).
  const box = createSecretBox(() => config.webhooksSecretKey ?? readOrCreateKeyFile(config.webhooksSecretKeyFile, logger))
  // Runs in server processes only (start()), never in the CLI.
  const dispatcher = createDispatcher({
    repo,
    box,
    clock,
    logger,
    outbound: deps.outbound,
    pollIntervalMs: config.webhooksPollIntervalMs,
    leaseMs: config.webhooksLeaseMs,
    onOutcome: (outcome) => metrics.countWebhookDelivery(outcome),
  })
  metrics.watchWebhookBacklog(() => repo.backlog())
  const events = createEventRecorder({ adapter: storage.adapter, clock, onRecorded: () => dispatcher.kick() })
  const webhooks = createWebhooksService({
    repo,
    box,
    clock,
    resolve: deps.resolve,
    allowPrivate: config.fetchAllowPrivate,
    onEnqueued: () => dispatcher.kick(),
  })
  return { repo, box, dispatcher, events, webhooks }
}
