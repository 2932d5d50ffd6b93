import { newId } from '../shared/ids.js'
import type { Transaction } from '../storage/transaction.js'
import type { NewDeliveryRow } from './webhooks.table.js'

/** Events an endpoint can subscribe to (docs/api/webhooks.md#events-and-payloads); `webhook.test` is sent by the test route only. */
export const EVENT_TYPES = [
  'link.created',
  'link.updated',
  'link.deleted',
  'link.clicked',
  'link.broken',
  'conversation.created',
  'conversation.updated',
  'conversation.deleted',
  'message.created',
  'message.deleted',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

/**
 * The seam between the features that change things and the webhook outbox: a service calls
 * `record` inside the transaction of its change, so that the event commits (or rolls back) with it.
 * Services know nothing else of webhooks.
 */
export interface EventRecorder {
  record(trx: Transaction, ownerId: string, type: EventType, data: unknown): Promise<void>
}

/** For a container without webhooks (and tests of a feature alone). */
export const noEvents: EventRecorder = { record: async () => {} }

/** Whether an endpoint's subscription (space-separated names, or `*`) takes `type`. */
export const subscribes = (events: string, type: string) => events === '*' || events.split(' ').includes(type)

/** The body that is signed and sent: `{type, timestamp, data}`. */
export const eventBody = (type: string, at: number, data: unknown) => JSON.stringify({ type, timestamp: new Date(at).toISOString(), data })

/** The type of a delivery that carries several link.clicked events (docs/api/webhooks.md#batches). */
export const CLICK_BATCH = 'link.clicked.batch'

/**
 * A batch delivery's payload holds its events one per line (each `{id, type, timestamp, data}` as JSON,
 * which has no raw line break), so that events are appended by string concatenation in SQL; this is
 * the body sent, the same bytes on every attempt.
 */
export const batchBody = (createdAt: number, lines: string) =>
  `{"type":"${CLICK_BATCH}","timestamp":"${new Date(createdAt).toISOString()}","data":{"events":[${lines.split('\n').join(',')}]}}`

/** The body a delivery sends. */
export const bodyOf = (delivery: { event_type: string; created_at: number; payload: string }) =>
  delivery.event_type === CLICK_BATCH ? batchBody(delivery.created_at, delivery.payload) : delivery.payload

/** A delivery of event `eventId` to one endpoint, due now: what every producer of events writes to the outbox. */
export const newDelivery = (webhookId: string, eventId: string, type: string, payload: string, now: number): NewDeliveryRow => ({
  id: newId('dlv'),
  webhook_id: webhookId,
  event_id: eventId,
  event_type: type,
  payload,
  status: 'pending',
  attempts: 0,
  next_attempt_at: now,
  last_attempt_at: null,
  last_status_code: null,
  last_error: null,
  response_excerpt: null,
  created_at: now,
  delivered_at: null,
})
