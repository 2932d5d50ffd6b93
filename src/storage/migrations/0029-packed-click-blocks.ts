import { PostgresAdapter, type Kysely } from 'kysely'

/**
 * Compacted click blocks (ADR 0014): `packed` holds a link's visits of a closed hour (or, after a week,
 * of a UTC day), columnar and compressed; such a row's `data` is empty. Rows the roll-up writes keep
 * their JSON in `data` and no `packed` until the compaction replaces them. A new nullable column: no
 * table rewrite on either database, and a release before it reads the rows it wrote as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .alterTable('click_blocks')
    .addColumn('packed', postgres ? 'bytea' : 'blob')
    .execute()
  // The compaction's progress: every block numbered at or below `raw_through` that the roll-up wrote is
  // compacted into its hour's row, every row at or below `hours_through` into its day's.
  await db.schema
    .createTable('click_block_compaction')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('raw_through', 'bigint', (c) => c.notNull())
    .addColumn('hours_through', 'bigint', (c) => c.notNull())
    .execute()
  await db
    .insertInto('click_block_compaction' as never)
    .values({ id: 1, raw_through: 0, hours_through: 0 } as never)
    .execute()
}
