import { PostgresAdapter, sql, type Kysely } from 'kysely'

/**
 * Compacted click blocks (ADR 0014). `packed` holds a compacted row's visits, columnar and compressed
 * (its `data` is then empty); `level` says what a row is: 0 as the roll-up wrote it (30 s of a link's
 * visits in one hour, JSON in `data`), 1 a link's closed hour, 2 a link's UTC day once a week old.
 * The partial index holds the rows the compaction still has to merge (levels 0 and 1) by time: it finds
 * them without a walk of the table, and the rows of days already compacted cost it nothing.
 * New columns only: no table rewrite on either database, and rows written before read as level 0.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .alterTable('click_blocks')
    .addColumn('packed', postgres ? 'bytea' : 'blob')
    .execute()
  await db.schema
    .alterTable('click_blocks')
    .addColumn('level', 'smallint', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema
    .createIndex('click_blocks_to_compact')
    .on('click_blocks')
    .columns(['level', 'start_at'])
    .where(sql<boolean>`level < 2`)
    .execute()
}
