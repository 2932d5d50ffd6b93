import type { Kysely } from 'kysely'

/**
 * Social previews (docs/api/links.md#social-previews): `links.preview`, the card that link-preview
 * crawlers get instead of the redirect, as JSON text (`{"title","description","image"}`), or null.
 * Read with the redirect's point query, never filtered on: no index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('links').addColumn('preview', 'text').execute()
}
