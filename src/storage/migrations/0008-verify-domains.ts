import { sql, type Kysely } from 'kysely'

/**
 * Custom domains gain an ownership check (a DNS TXT record, docs/operations.md). Domains claimed
 * before it existed were accepted under the old rules and keep serving: they become `verified` as of
 * their creation. One column per statement: SQLite's ALTER TABLE adds one at a time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('domains')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('verified'))
    .execute()
  await db.schema.alterTable('domains').addColumn('verification_token', 'text').execute()
  await db.schema.alterTable('domains').addColumn('verified_at', 'bigint').execute()
  await db.schema.alterTable('domains').addColumn('last_checked_at', 'bigint').execute()
  await sql`update domains set verified_at = created_at`.execute(db)
}
