import { sql, type Kysely } from 'kysely'

/**
 * Titles taken from the destination page (docs/api/link-care.md#title-from-the-page): `links.title_source`
 * says where a link's title came from, `page` (fetched after a create without a title) or `user`
 * (written through the API or an import); null while nobody has given it one. Links titled before
 * this migration were titled by their owners.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('links').addColumn('title_source', 'text').execute()
  await sql`update links set title_source = 'user' where title is not null`.execute(db)
}
