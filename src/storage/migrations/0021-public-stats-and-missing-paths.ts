import type { Kysely } from 'kysely'

/**
 * Public statistics and visits to missing paths (docs/api/analytics.md). `links.public_stats` (0/1)
 * opens a link's statistics to anyone; `missing_path_visits` counts human visits to paths that name no
 * link, per domain, path and hour, without any address. Counts are added by upsert, so several
 * instances share a row; the primary key, domain first, serves the read of a domain's hours, and the
 * index on `hour` the retention prune.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('links')
    .addColumn('public_stats', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema
    .createTable('missing_path_visits')
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('clicks', 'bigint', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('missing_path_visits_pk', ['domain', 'hour', 'path'])
    .execute()
  await db.schema.createIndex('missing_path_visits_hour').on('missing_path_visits').column('hour').execute()
}
