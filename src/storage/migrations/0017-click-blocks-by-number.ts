import { PostgresAdapter, type Kysely } from 'kysely'

/** `click_blocks` as this migration finds it. */
export interface TablesBefore {
  click_blocks: { id: string; link_id: string; start_at: number; end_at: number; clicks: number; data: string }
}
type Tables = TablesBefore & { click_blocks_next: Omit<TablesBefore['click_blocks'], 'id'> & { id: number } }

/**
 * Click blocks numbered by the database instead of by a text id, without the `end_at` index (see
 * ADR 0010). A roll-up writes one block per link visited: each block cost an entry
 * in four B-trees (the table, the text primary key, (link_id, start_at) and end_at), ~15 µs per block on
 * SQLite, more than the visits it holds. Now two: the table, whose key is the number (the rowid on
 * SQLite, an identity on PostgreSQL: new blocks go to the end), and (link_id, start_at) for the export.
 * Retention walks the blocks in the order of their numbers, which is the order they were written in.
 * The blocks are copied in the order of their old ids (time-ordered ULIDs), so that it stays so.
 */
export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as Kysely<Tables>
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .createTable('click_blocks_next')
    // SQLite: `integer primary key` is the rowid itself; PostgreSQL numbers rows with an identity.
    .addColumn('id', postgres ? 'bigint' : 'integer', (c) => (postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey()))
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('start_at', 'bigint', (c) => c.notNull())
    .addColumn('end_at', 'bigint', (c) => c.notNull())
    .addColumn('clicks', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute()
  await db
    .insertInto('click_blocks_next')
    .columns(['link_id', 'start_at', 'end_at', 'clicks', 'data'])
    .expression((eb) => eb.selectFrom('click_blocks').select(['link_id', 'start_at', 'end_at', 'clicks', 'data']).orderBy('id'))
    .execute()
  await db.schema.dropTable('click_blocks').execute()
  await db.schema.alterTable('click_blocks_next').renameTo('click_blocks').execute()
  await db.schema.createIndex('click_blocks_link_start').on('click_blocks').columns(['link_id', 'start_at']).execute()
}
