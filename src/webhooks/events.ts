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
