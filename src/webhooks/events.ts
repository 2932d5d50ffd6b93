import type { Db } from '../storage/database.js'

/** Events an endpoint can subscribe to (API.md §10); `webhook.test` is sent by the test route only. */
export const EVENT_TYPES = [
  'link.created',
  'link.updated',
  'link.deleted',
  'link.clicked',
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
  record(trx: Db, ownerId: string, type: EventType, data: unknown): Promise<void>
}

/** Runs `work` in one transaction, with a feature's repository bound to it and the transaction for `record`. */
export type Transactional<R> = <T>(work: (repo: R, trx: Db) => Promise<T>) => Promise<T>

/** For a container without webhooks (and tests of a feature alone). */
export const noEvents: EventRecorder = { record: async () => {} }

/** Whether an endpoint's subscription (space-separated names, or `*`) takes `type`. */
export const subscribes = (events: string, type: string) => events === '*' || events.split(' ').includes(type)

/** The body that is signed and sent: `{type, timestamp, data}`. */
export const eventBody = (type: string, at: number, data: unknown) => JSON.stringify({ type, timestamp: new Date(at).toISOString(), data })
