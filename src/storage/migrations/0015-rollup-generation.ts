import type { Kysely } from 'kysely'

interface Tables {
  facets_compaction: { id: number; days_before: number; rollups: number }
}

/**
 * `facets_compaction.rollups` counts the roll-ups of every instance: a writer that finds it one above
 * its own last roll-up knows that no other writer changed a breakdown row since, so its memory of the
 * hour rows it wrote is still what the table holds (click-rollup.ts, WrittenFacets).
 */
export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as Kysely<Tables>
  await db.schema
    .alterTable('facets_compaction')
    .addColumn('rollups', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
}
