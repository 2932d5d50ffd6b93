import type { Kysely } from 'kysely'

/**
 * Destination health (docs/api/link-care.md#destination-health). On `links`: the verdict
 * (`health_status`: unknown, ok or broken), the last check's HTTP status, time and error, and
 * `health_failures`, the failed checks in a row since the last success (two make a link broken). The
 * index on `health_checked_at` lets the checker take the links due next in small batches, the
 * (owner_id, health_status) one serves the list's `query[health]` filter. `health_leases` holds one
 * row per background job that only one instance may run at a time: who holds it, and until when.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('links')
    .addColumn('health_status', 'text', (c) => c.notNull().defaultTo('unknown'))
    .execute()
  await db.schema.alterTable('links').addColumn('health_http_status', 'integer').execute()
  await db.schema.alterTable('links').addColumn('health_checked_at', 'bigint').execute()
  await db.schema.alterTable('links').addColumn('health_error', 'text').execute()
  await db.schema
    .alterTable('links')
    .addColumn('health_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema.createIndex('links_health_checked_at').on('links').column('health_checked_at').execute()
  await db.schema.createIndex('links_owner_health').on('links').columns(['owner_id', 'health_status']).execute()
  await db.schema
    .createTable('health_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute()
}
