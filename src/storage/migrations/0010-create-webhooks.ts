import { sql, type Kysely } from 'kysely'

/**
 * Webhook endpoints and their outbox. A delivery row is written in the same transaction as the change
 * that caused its event (webhooks/events.ts), and is then the delivery's log: attempts, last status,
 * next attempt. Times are epoch ms; booleans 0/1.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    // Space-separated event names, or `*`.
    .addColumn('events', 'text', (c) => c.notNull())
    // 1 when the endpoint takes link.clicked: the click writer asks only for these (one index probe per batch).
    .addColumn('wants_clicks', 'integer', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    // The signing secret, encrypted at rest (docs/adr/0006-webhook-secrets-at-rest.md).
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('last_success_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('webhooks_owner_created').on('webhooks').columns(['owner_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('webhooks_clicks_owner').on('webhooks').columns(['wants_clicks', 'enabled', 'owner_id']).execute()

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    // The webhook-id header: one per event, the same on every retry (and to every endpoint).
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    // The exact body that is signed and sent, on every attempt.
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    // When the next attempt is due; while an attempt runs, the end of its lease. Null once settled.
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('response_excerpt', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute()
  // The dispatcher's questions: which endpoints have deliveries due, and which of each endpoint's are due.
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['webhook_id', 'status', 'next_attempt_at']).execute()
  // The backlog (/metrics): pending deliveries of every endpoint.
  await db.schema.createIndex('webhook_deliveries_status').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute()
  // The delivery log of one endpoint, newest first, and the cascade when an endpoint is deleted.
  await db.schema.createIndex('webhook_deliveries_webhook').on('webhook_deliveries').columns(['webhook_id', 'id']).execute()

  // Tokens that carried every scope (the default, the bootstrap token, the one printed on first start)
  // keep carrying every scope: they gain the two new ones. Tokens with a chosen subset do not.
  await sql`update tokens set scopes = scopes || ' webhooks:read webhooks:write'
    where scopes = 'links:read links:write conversations:read conversations:write domains:read domains:write'`.execute(db)
}
