import { sql, type Kysely } from 'kysely'

/**
 * A deleted link becomes a tombstone (`deleted_at`) that the background purge removes with its
 * statistics and conversations, in bounded batches (src/links/links.purger.ts): deleting a link with
 * half a million clicks no longer cascades inside the request. Its (domain, path) is free at once:
 * uniqueness holds among live links only. A partial index finds the tombstones.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('links').addColumn('deleted_at', 'bigint').execute()
  await db.schema.dropIndex('links_domain_path').execute()
  await db.schema.createIndex('links_domain_path').on('links').columns(['domain', 'path']).unique().where(sql.ref('deleted_at'), 'is', null).execute()
  await db.schema.createIndex('links_deleted').on('links').column('deleted_at').where(sql.ref('deleted_at'), 'is not', null).execute()
}
