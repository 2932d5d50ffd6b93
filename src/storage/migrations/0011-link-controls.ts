import type { Kysely } from 'kysely'

/**
 * Per-link controls (docs/api/links.md#link-controls): redirect status, expiry, click limit, the URL an expired link sends
 * to, a password (its scrypt hash only) and targeting rules (JSON text: read only by the redirect's
 * lookup, never queried). Tags live in a table of their own so that `query[tag]` is an indexed
 * lookup on both dialects; owner_id is repeated there so that the index is the owner's tags alone.
 * One column per statement: SQLite's ALTER TABLE adds one at a time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('links')
    .addColumn('redirect_type', 'integer', (c) => c.notNull().defaultTo(302))
    .execute()
  await db.schema.alterTable('links').addColumn('expires_at', 'bigint').execute()
  await db.schema.alterTable('links').addColumn('max_clicks', 'bigint').execute()
  await db.schema.alterTable('links').addColumn('expired_url', 'text').execute()
  await db.schema.alterTable('links').addColumn('password_hash', 'text').execute()
  await db.schema.alterTable('links').addColumn('rules', 'text').execute()
  await db.schema
    .createTable('link_tags')
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('link_tags_pk', ['link_id', 'tag'])
    .execute()
  await db.schema.createIndex('link_tags_owner_tag').on('link_tags').columns(['owner_id', 'tag', 'link_id']).execute()
}
