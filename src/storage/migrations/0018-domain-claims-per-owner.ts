import { sql, type Kysely } from 'kysely'

/**
 * A custom domain's name is no longer held by whoever claims it first: each owner may hold a pending
 * claim on the same name, and the first to publish its TXT record gets it (docs/api/domains.md, "Custom
 * domains"). The key becomes (name, owner_id); a name may be verified for one owner only (a partial
 * unique index). `renewed_at`, the last time the claimant posted or verified it, ends a pending claim
 * left alone. SQLite cannot change a primary key, so the table is built anew and filled.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('domains_next')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('verified'))
    .addColumn('verification_token', 'text')
    .addColumn('verified_at', 'bigint')
    .addColumn('last_checked_at', 'bigint')
    .addColumn('renewed_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('domains_name_owner', ['name', 'owner_id'])
    .execute()
  await sql`insert into domains_next (name, owner_id, created_at, status, verification_token, verified_at, last_checked_at, renewed_at)
    select name, owner_id, created_at, status, verification_token, verified_at, last_checked_at, created_at from domains`.execute(db)
  await db.schema.dropTable('domains').execute()
  await db.schema.alterTable('domains_next').renameTo('domains').execute()
  await db.schema.createIndex('domains_owner').on('domains').columns(['owner_id', 'name']).execute()
  await db.schema.createIndex('domains_verified_name').on('domains').column('name').unique().where(sql.ref('status'), '=', 'verified').execute()
}
