import type { Kysely } from 'kysely'

/**
 * Batched `link.clicked` deliveries (docs/api/webhooks.md#batches). An endpoint's `batch_max_events`
 * and `batch_max_wait_ms` (both null: one event per delivery) gather its click events into one
 * `link.clicked.batch` delivery, whose `batch_size` counts the events its payload holds (null for
 * every other delivery).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('batch_max_events', 'integer').execute()
  await db.schema.alterTable('webhooks').addColumn('batch_max_wait_ms', 'integer').execute()
  await db.schema.alterTable('webhook_deliveries').addColumn('batch_size', 'integer').execute()
}
