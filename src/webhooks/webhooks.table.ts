import type { Insertable, Selectable, Updateable } from 'kysely'
import type { CreatedByColumns } from '../shared/actor.js'

/** Times in epoch ms; booleans as 0/1. */
export interface WebhooksTable extends CreatedByColumns {
  id: string
  owner_id: string
  url: string
  events: string
  wants_clicks: number
  description: string | null
  enabled: number
  disabled_reason: string | null
  secret: string
  /** Both set, or both null (docs/api/webhooks.md#batches). */
  batch_max_events: number | null
  batch_max_wait_ms: number | null
  last_success_at: number | null
  created_at: number
  updated_at: number
}
export type WebhookRow = Selectable<WebhooksTable>
export type NewWebhookRow = Insertable<WebhooksTable>
export type WebhookRowUpdate = Updateable<WebhooksTable>

export type DeliveryStatus = 'pending' | 'delivered' | 'failed'

export interface WebhookDeliveriesTable {
  id: string
  webhook_id: string
  event_id: string
  event_type: string
  payload: string
  status: DeliveryStatus
  attempts: number
  next_attempt_at: number | null
  last_attempt_at: number | null
  last_status_code: number | null
  last_error: string | null
  response_excerpt: string | null
  created_at: number
  delivered_at: number | null
  /** The events in a link.clicked.batch delivery's payload; null for any other. */
  batch_size: number | null
}
export type DeliveryRow = Selectable<WebhookDeliveriesTable>
export type NewDeliveryRow = Insertable<WebhookDeliveriesTable>
