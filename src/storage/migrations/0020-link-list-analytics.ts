import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely'

/**
 * The link list of docs/api/analytics.md#the-link-list: each link's human clicks and latest human
 * click, kept on the link (the click roll-up adds to them in the transaction that writes the rollups)
 * so that listing and sorting by them reads no statistics; indexes that page by them; and a trigram
 * index for `q=`, a substring of the title, path, destination or a tag.
 *
 * - SQLite: an FTS5 table with the trigram tokenizer, `link_search`, one row per link holding its
 *   title, path, destination and tags (a line feed between them), kept by triggers on `links` and
 *   `link_tags`. It is contentless (the text is in `links` already) and keyed by `link_search_rows.row`,
 *   a number of its own per link: the implicit rowid of `links` (a text primary key) may change on VACUUM.
 * - PostgreSQL: GIN indexes of pg_trgm over the same text of a link (an expression) and over tags. Where
 *   the extension is not installed and cannot be created (no privilege, not shipped), the migration
 *   goes on without them and `q=` scans the owner's links with ILIKE (storage/dialect.ts).
 *
 * The expressions here are repeated in storage/dialect.ts (`searchCandidates`), which must use them as written.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('links')
    .addColumn('clicks', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema.alterTable('links').addColumn('last_clicked_at', 'bigint').execute()
  // Every human click rolled up so far: the rollups hold them all, for all time.
  await sql`update links set
      clicks = (select coalesce(sum(r.human_clicks), 0) from link_click_rollups r where r.link_id = links.id),
      last_clicked_at = (select max(r.last_human_click_at) from link_click_rollups r where r.link_id = links.id)
    where exists (select 1 from link_click_rollups r where r.link_id = links.id)`.execute(db)
  // sort=clicks and sort=lastClickedAt, each way: one range of the owner's live links, in order.
  const live = (name: string, column: string) =>
    db.schema.createIndex(name).on('links').columns(['owner_id', column, 'id']).where(sql.ref('deleted_at'), 'is', null).execute()
  await live('links_owner_clicks', 'clicks')
  await live('links_owner_last_clicked', 'last_clicked_at')

  if (db.getExecutor().adapter instanceof PostgresAdapter) await trigramIndexes(db)
  else await searchTable(db)
}

/**
 * A link's searchable text in SQL, `row` naming its row of `links` (an alias, `new`): the title, path,
 * destination and tags, a line feed between them (SQLite).
 */
const bodyOf = (row: string) =>
  `coalesce(${row}.title, '') || char(10) || ${row}.path || char(10) || ${row}.destination` +
  ` || coalesce(char(10) || (select group_concat(tag, char(10)) from link_tags where link_id = ${row}.id), '')`

async function searchTable(db: Kysely<unknown>): Promise<void> {
  await sql`create table link_search_rows (row integer primary key, link_id text not null unique)`.execute(db)
  await sql`create virtual table link_search using fts5(body, content='', contentless_delete=1, tokenize='trigram case_sensitive 0')`.execute(db)
  await sql`insert into link_search_rows (link_id) select id from links order by created_at, id`.execute(db)
  await sql.raw(`insert into link_search (rowid, body) select m.row, ${bodyOf('l')} from link_search_rows m join links l on l.id = m.link_id`).execute(db)
  /** Writes the search row of the link `id` again, when it still has one (a link being deleted has none left). */
  const rewrite = (id: string) => `
    delete from link_search where rowid = (select row from link_search_rows where link_id = ${id});
    insert into link_search (rowid, body)
      select m.row, ${bodyOf('l')} from link_search_rows m join links l on l.id = m.link_id where m.link_id = ${id};`
  const trigger = (name: string, event: string, body: string) => sql.raw(`create trigger ${name} after ${event} begin ${body} end`).execute(db)
  await trigger(
    'links_search_insert',
    'insert on links',
    `insert into link_search_rows (link_id) values (new.id);
     insert into link_search (rowid, body) values ((select row from link_search_rows where link_id = new.id), ${bodyOf('new')});`,
  )
  // The roll-up's counters and a move of domain change no searchable text: no rewrite for them.
  await trigger('links_search_update', 'update of title, path, destination on links', rewrite('new.id'))
  await trigger(
    'links_search_delete',
    'delete on links',
    `delete from link_search where rowid = (select row from link_search_rows where link_id = old.id);
     delete from link_search_rows where link_id = old.id;`,
  )
  await trigger('link_tags_search_insert', 'insert on link_tags', rewrite('new.link_id'))
  await trigger('link_tags_search_delete', 'delete on link_tags', rewrite('old.link_id'))
}

/**
 * pg_trgm's GIN indexes, when the extension is there or can be created: in the schema where it is
 * installed already, else in `public`, else in the current schema. A failed CREATE EXTENSION is undone
 * to a savepoint, so that the rest of the migration (run in one transaction) goes on without it.
 */
async function trigramIndexes(db: Kysely<unknown>): Promise<void> {
  const schema = await trigramSchema(db)
  if (schema === undefined) return
  const ops = sql`${sql.id(schema)}.gin_trgm_ops`
  // Not partial (tombstones are few): PostgreSQL estimates a condition on an expression from the
  // statistics of an index on it, but never of a partial one, and then took this index even for a word
  // in every link (a bitmap of all of them) where the first few thousand rows read hold enough.
  await sql`create index links_search_trgm on links using gin ((coalesce(title, '') || E'\\n' || path || E'\\n' || destination) ${ops})`.execute(db)
  await sql`create index link_tags_tag_trgm on link_tags using gin (tag ${ops})`.execute(db)
}

/** The schema holding pg_trgm, installing it first if it is not installed; undefined when it cannot be. */
export async function trigramSchema(db: Kysely<unknown>, extension = 'pg_trgm'): Promise<string | undefined> {
  const installed = async () =>
    (
      await sql<{
        schema: string
      }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = ${extension}`.execute(db)
    ).rows[0]?.schema
  const current = (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
  for (const target of ['public', current]) {
    const found = await installed()
    if (found !== undefined || target === undefined) return found
    await undoneOnError(db, sql`create extension if not exists ${sql.id(extension)} with schema ${sql.id(target)}`)
  }
  return installed()
}

/** Runs `statement`; when it fails, the transaction (if any) goes back to where it was before it and on. */
async function undoneOnError(db: Kysely<unknown>, statement: RawBuilder<unknown>): Promise<void> {
  if (!db.isTransaction) {
    await statement.execute(db).catch(() => {})
    return
  }
  await sql`savepoint linkline_try`.execute(db)
  try {
    await statement.execute(db)
    await sql`release savepoint linkline_try`.execute(db)
  } catch {
    await sql`rollback to savepoint linkline_try`.execute(db)
  }
}
