import type { Kysely } from 'kysely'

/** Public statistics (docs/api/analytics.md): `links.public_stats` (0/1) opens a link's statistics to anyone. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('links')
    .addColumn('public_stats', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
}
