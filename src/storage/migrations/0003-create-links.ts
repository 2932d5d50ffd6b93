import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  // The redirect's point query, and the uniqueness of (domain, path) across all owners.
  await db.schema.createIndex('links_domain_path').on('links').columns(['domain', 'path']).unique().execute()
  // The list (newest first) and each exact-match filter, each served by an index that also orders.
  await db.schema.createIndex('links_owner_created').on('links').columns(['owner_id', 'created_at', 'id']).execute()
  for (const column of ['destination', 'title', 'domain', 'path'] as const) {
    await db.schema.createIndex(`links_owner_${column}`).on('links').columns(['owner_id', column, 'created_at', 'id']).execute()
  }
}
