import { PostgresAdapter, sql, type Kysely } from 'kysely'

/**
 * SQLite's search index of links (`link_search`, migration 0020) is written in batches, off the request
 * (ADR 0020). Its triggers no longer write the index: they note the link's row in
 * `link_search_pending`, and the server indexes the noted rows in batches (`indexSearch` in
 * storage/dialect.ts), where one FTS5 segment serves the whole batch. Until then a
 * search takes the noted links as candidates too, so a link is found from its write on.
 *
 * `indexed` says whether the row is in the index already (its text changed: the old entry goes when
 * the new one is written) or not yet (a new link: there is nothing to remove). Links deleted while
 * noted leave no entry behind. PostgreSQL (pg_trgm's indexes) is unchanged.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return
  await sql`create table link_search_pending (row integer primary key, indexed integer not null)`.execute(db)
  const rowOf = (id: string) => `(select row from link_search_rows where link_id = ${id})`
  const note = (id: string) => `insert or ignore into link_search_pending (row, indexed) select row, 1 from link_search_rows where link_id = ${id};`
  const replace = async (name: string, event: string, body: string) => {
    await sql.raw(`drop trigger ${name}`).execute(db)
    await sql.raw(`create trigger ${name} after ${event} begin ${body} end`).execute(db)
  }
  await replace(
    'links_search_insert',
    'insert on links',
    `insert into link_search_rows (link_id) values (new.id);
     insert into link_search_pending (row, indexed) values (${rowOf('new.id')}, 0);`,
  )
  await replace('links_search_update', 'update of title, path, destination on links', note('new.id'))
  await replace(
    'links_search_delete',
    'delete on links',
    `delete from link_search where rowid = ${rowOf('old.id')}
       and not exists (select 1 from link_search_pending where row = ${rowOf('old.id')} and indexed = 0);
     delete from link_search_pending where row = ${rowOf('old.id')};
     delete from link_search_rows where link_id = old.id;`,
  )
  await replace('link_tags_search_insert', 'insert on link_tags', note('new.link_id'))
  await replace('link_tags_search_delete', 'delete on link_tags', note('old.link_id'))
}
