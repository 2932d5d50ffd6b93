import { isIP } from 'node:net'
import type { Clock } from '../shared/clock.js'
import { newId } from '../shared/ids.js'
import type { DialectAdapter } from '../storage/dialect.js'
import type { Transaction } from '../storage/transaction.js'
import type { Principal } from '../tokens/tokens.service.js'
import { describeAddress, isPublicAddress } from '../shared/outbound-address.js'
import type { Resolve } from '../outbound/resolve.js'
import { eventBody, newDelivery, subscribes, type EventRecorder } from './events.js'
import type { SecretBox } from './signing.js'
import { newSecret } from './signing.js'
import { deliveryNotFound, invalidWebhookUrl, privateWebhookUrl, webhookNotFound } from './webhooks.errors.js'
import { createWebhooksRepository, type WebhooksRepository } from './webhooks.repository.js'
import type { CreateWebhookBody, DeliveryObject, ListDeliveriesQuery, UpdateWebhookBody, WebhookObject } from './webhooks.schemas.js'
import type { DeliveryRow, WebhookRow } from './webhooks.table.js'
import { createdByColumns, createdByOf } from '../shared/actor.js'

/** How long the check of a URL's host waits for DNS at creation; a name that does not resolve yet is checked again at each delivery. */
const RESOLVE_TIMEOUT_MS = 3000

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

const toObject = (row: WebhookRow): WebhookObject => ({
  id: row.id,
  url: row.url,
  events: row.events.split(' '),
  description: row.description,
  batch: row.batch_max_events === null || row.batch_max_wait_ms === null ? null : { maxEvents: row.batch_max_events, maxWaitMs: row.batch_max_wait_ms },
  enabled: row.enabled === 1,
  disabledReason: row.disabled_reason,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
  createdBy: createdByOf(row),
})

export const toDelivery = (row: DeliveryRow): DeliveryObject => ({
  id: row.id,
  eventId: row.event_id,
  eventType: row.event_type,
  status: row.status,
  delivered: row.status === 'delivered',
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  responseExcerpt: row.response_excerpt,
  lastAttemptAt: iso(row.last_attempt_at),
  nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
  createdAt: new Date(row.created_at).toISOString(),
  deliveredAt: iso(row.delivered_at),
})

const batchColumns = (batch: WebhookObject['batch']) => ({ batch_max_events: batch?.maxEvents ?? null, batch_max_wait_ms: batch?.maxWaitMs ?? null })

/** `*` alone, or the names in a stable order without repeats. */
const normalizeEvents = (events: readonly string[]) => (events.includes('*') ? '*' : [...new Set(events)].sort().join(' '))

/**
 * The outbox writer behind EventRecorder: one delivery row per enabled endpoint of the owner that
 * takes the event, in the caller's transaction. `onRecorded` wakes the dispatcher of this process.
 */
export function createEventRecorder(deps: { adapter: DialectAdapter; clock: Clock; onRecorded?: () => void }): EventRecorder {
  return {
    async record(trx: Transaction, ownerId: string, type: string, data: unknown): Promise<void> {
      const repo = createWebhooksRepository(trx, deps.adapter)
      const endpoints = (await repo.enabledFor(ownerId)).filter((w) => subscribes(w.events, type))
      if (endpoints.length === 0) return
      const now = deps.clock.now()
      const eventId = newId('evt')
      const payload = eventBody(type, now, data)
      await repo.insertDeliveries(endpoints.map((w) => newDelivery(w.id, eventId, type, payload, now)))
      deps.onRecorded?.()
    },
  }
}

export function createWebhooksService(deps: {
  repo: WebhooksRepository
  box: SecretBox
  clock: Clock
  resolve: Resolve
  allowPrivate: boolean
  /** Wakes the dispatcher after a test event or a replay. */
  onEnqueued?: () => void
}) {
  const { repo, clock } = deps

  async function findOwned(principal: Principal, id: string): Promise<WebhookRow> {
    const row = await repo.findForOwner(principal.ownerId, id)
    if (!row) throw webhookNotFound()
    return row
  }

  /** An absolute http(s) URL whose host does not resolve to a private address (unless allowed). */
  async function checkUrl(raw: string): Promise<string> {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      throw invalidWebhookUrl()
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '' || url.username !== '' || url.password !== '') throw invalidWebhookUrl()
    if (deps.allowPrivate) return url.href
    const host = url.hostname.replace(/^\[|\]$/g, '')
    if (isIP(host) !== 0) {
      if (!isPublicAddress(host)) throw privateWebhookUrl(host, describeAddress(host))
      return url.href
    }
    let timer: NodeJS.Timeout | undefined
    const addresses = await Promise.race([
      deps.resolve(host).catch(() => []),
      new Promise<[]>((resolve) => (timer = setTimeout(() => resolve([]), RESOLVE_TIMEOUT_MS))),
    ]).finally(() => clearTimeout(timer))
    const refused = addresses.find((a) => !isPublicAddress(a.address))
    if (refused) throw privateWebhookUrl(host, describeAddress(refused.address))
    return url.href
  }

  return {
    async create(principal: Principal, input: CreateWebhookBody): Promise<WebhookObject & { secret: string }> {
      const url = await checkUrl(input.url)
      const events = normalizeEvents(input.events)
      const secret = newSecret()
      const now = clock.now()
      const row: WebhookRow = {
        id: newId('whk'),
        owner_id: principal.ownerId,
        ...createdByColumns(principal.actor),
        url,
        events,
        wants_clicks: subscribes(events, 'link.clicked') ? 1 : 0,
        description: input.description ?? null,
        ...batchColumns(input.batch ?? null),
        enabled: 1,
        disabled_reason: null,
        secret: deps.box.seal(secret),
        last_success_at: null,
        created_at: now,
        updated_at: now,
      }
      await repo.insert(row)
      return { ...toObject(row), secret }
    },

    get: async (principal: Principal, id: string) => toObject(await findOwned(principal, id)),

    list: async (principal: Principal) => (await repo.list(principal.ownerId)).map(toObject),

    async update(principal: Principal, id: string, input: UpdateWebhookBody): Promise<WebhookObject> {
      const current = await findOwned(principal, id)
      const events = input.events === undefined ? current.events : normalizeEvents(input.events)
      const url = input.url === undefined ? current.url : await checkUrl(input.url)
      const enabled = input.enabled === undefined ? current.enabled : input.enabled ? 1 : 0
      const row = await repo.update(principal.ownerId, id, {
        url,
        events,
        wants_clicks: subscribes(events, 'link.clicked') ? 1 : 0,
        description: input.description === undefined ? current.description : input.description,
        ...(input.batch !== undefined && batchColumns(input.batch)),
        enabled,
        // Enabled again by its owner: the reason it was disabled no longer holds.
        disabled_reason: enabled === 1 ? null : current.disabled_reason,
        updated_at: clock.now(),
      })
      if (!row) throw webhookNotFound()
      if (enabled === 1 && current.enabled === 0) deps.onEnqueued?.()
      return toObject(row)
    },

    async delete(principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
      if (!(await repo.deleteForOwner(principal.ownerId, id))) throw webhookNotFound()
      return { id, deleted: true }
    },

    async listDeliveries(principal: Principal, id: string, query: ListDeliveriesQuery) {
      await findOwned(principal, id)
      const limit = query.limit ?? 20
      const rows = await repo.listDeliveries(id, query.starting_after, limit + 1)
      const page = rows.slice(0, limit)
      const hasMore = rows.length > limit
      return { data: page.map(toDelivery), pagination: { limit, hasMore, nextCursor: hasMore ? (page.at(-1)?.id ?? null) : null } }
    },

    /** Queues a `webhook.test` event for this endpoint alone, whatever it subscribes to. */
    async test(principal: Principal, id: string): Promise<DeliveryObject> {
      const webhook = await findOwned(principal, id)
      const now = clock.now()
      const row = newDelivery(webhook.id, newId('evt'), 'webhook.test', eventBody('webhook.test', now, { webhookId: webhook.id, url: webhook.url }), now)
      await repo.insertDeliveries([row])
      deps.onEnqueued?.()
      return toDelivery(row as DeliveryRow)
    },

    /** Replay: a settled delivery gets a fresh round of attempts, due now; a pending one is unchanged. */
    async retry(principal: Principal, id: string, deliveryId: string): Promise<DeliveryObject> {
      await findOwned(principal, id)
      if (!(await repo.findDelivery(id, deliveryId))) throw deliveryNotFound()
      await repo.requeue(id, deliveryId, clock.now())
      deps.onEnqueued?.()
      return toDelivery((await repo.findDelivery(id, deliveryId)) as DeliveryRow)
    },
  }
}
export type WebhooksService = ReturnType<typeof createWebhooksService>
