import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { Db } from './database.js'
import { inTransaction, type Transaction } from './transaction.js'

export type DialectName = 'sqlite' | 'postgres'

/**
 * The few things that differ between the databases, behind one small interface, so that no
 * repository or service asks which one runs (as Kysely's own `DialectAdapter` hides
 * `pg_advisory_xact_lock` behind `acquireMigrationLock`).
 */
export interface DialectAdapter {
  readonly name: DialectName
  /**
   * Whether several instances may serve this database at once: then each must hear of the others'
   * writes (the redirect cache, custom domains), and background writers take turns. PostgreSQL: yes;
   * SQLite: one server owns a file.
   */
  readonly sharedAcrossInstances: boolean
  /**
   * Serialises `trx` against every other transaction that takes the same `key`, in every process,
   * until it ends. PostgreSQL: a transaction-scoped advisory lock; SQLite: nothing to do, its write
   * transactions (BEGIN IMMEDIATE) already run one at a time.
   */
  lockForTransaction(trx: Transaction, key: number): Promise<void>
  /**
   * `query` (run in a transaction) taking the rows it selects for the transaction, past the rows
   * another transaction took: instances claiming work at once take different rows. PostgreSQL:
   * FOR UPDATE SKIP LOCKED; SQLite: the query as it is, one server process writing one transaction
   * at a time.
   */
  claimRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>
  /**
   * Deletes at most `limit` rows of `table` that match `where`, in one short statement, and returns
   * how many went: the unit of background deletes (the purge of deleted links, retention), so that no
   * statement holds the write lock for long. Rows are addressed by SQLite's `rowid` or PostgreSQL's
   * `ctid`: this needs neither the table's key nor `DELETE … LIMIT` (only some SQLite builds have it).
   */
  deleteBatch(db: Db, table: string, where: RawBuilder<unknown>, limit: number): Promise<number>
  /**
   * `value` holds `text` (the LIKE pattern `containing(text)`), ignoring the case of letters: SQLite's
   * LIKE, which folds ASCII letters only; PostgreSQL's ILIKE, which folds letters as the database's
   * LC_CTYPE does. What `q=` of the link list means, on each database.
   */
  containsIgnoringCase(value: Expression<unknown>, text: string): RawBuilder<SqlBool>
  /**
   * Up to `limit` ids of links that may hold `text` (3 characters or more) in their title, path,
   * destination or a tag, found through a trigram index: a superset of the owner's live links that do
   * (`containsIgnoringCase` tells which). SQLite: every owner's links, from the FTS5 table `link_search`
   * (trigram tokenizer, migration 0020), and the links it does not hold yet (`indexSearch`).
   * PostgreSQL: the owner's, through pg_trgm's GIN indexes, or, where pg_trgm is missing, by an ILIKE
   * scan of the owner's links.
   */
  searchCandidates(db: Db, ownerId: string, text: string, limit: number): Promise<string[]>
  /**
   * Writes the search index of up to `limit` links whose text changed since it was last written, in
   * one transaction, and returns how many (fewer than `limit`: none are left). SQLite: the rows its
   * triggers noted (migration 0030, ADR 0020), run by the server's jobs; PostgreSQL keeps its
   * indexes up to date in each write, and has nothing to do.
   */
  indexSearch(db: Db, limit: number): Promise<number>
  /**
   * `column` as an operand that no index serves, so that the planner takes another condition's index:
   * SQLite, which has no statistics here, would otherwise walk the owner's index rather than look up a
   * few thousand ids; PostgreSQL's planner weighs both by its statistics (the column as it is).
   */
  unindexed(column: string): RawBuilder<unknown>
}

/** The LIKE pattern of values that hold `text`: its `%`, `_` and `\` escaped with `\` (the ESCAPE of containsIgnoringCase). */
export const containing = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`

/** An FTS5 query of the phrase `text`: any text between double quotes, its own double quotes doubled. */
const phrase = (text: string) => `"${text.replaceAll('"', '""')}"`

/** A link's searchable text (`l` a row of `links`): its title, path, destination and tags, a line feed between them, as migration 0020 wrote it. */
const searchText = sql.raw(
  `coalesce(l.title, '') || char(10) || l.path || char(10) || l.destination` +
    ` || coalesce(char(10) || (select group_concat(tag, char(10)) from link_tags where link_id = l.id), '')`,
)

/** `column` is one of `values` (at least one): a `where` for deleteBatch. */
export const isOneOf = (column: string, values: readonly string[]): RawBuilder<unknown> => sql`${sql.ref(column)} in (${sql.join(values)})`

const someRows = (table: string, rowId: 'rowid' | 'ctid', where: RawBuilder<unknown>, limit: number) =>
  sql`select ${sql.raw(rowId)} from ${sql.table(table)} where ${where} limit ${limit}`
const deleted = async (statement: RawBuilder<unknown>, db: Db) => Number((await statement.execute(db)).numAffectedRows ?? 0)

export const sqliteAdapter: DialectAdapter = {
  name: 'sqlite',
  sharedAcrossInstances: false,
  lockForTransaction: async () => {},
  claimRows: (query) => query,
  deleteBatch: (db, table, where, limit) => deleted(sql`delete from ${sql.table(table)} where rowid in (${someRows(table, 'rowid', where, limit)})`, db),
  containsIgnoringCase: (value, text) => sql<SqlBool>`${value} like ${containing(text)} escape '\\'`,
  async searchCandidates(db, _ownerId, text, limit) {
    // The links not indexed yet are candidates whatever their text; the caller tests each.
    const pending = await db
      .selectFrom('link_search_rows')
      .select('link_id as id')
      .where('row', 'in', (eb) => eb.selectFrom('link_search_pending').select('row'))
      .limit(limit)
      .execute()
    const indexed = await sql<{ id: string }>`select m.link_id as id from link_search join link_search_rows m on m.row = link_search.rowid
        where link_search match ${phrase(text)} limit ${limit}`.execute(db)
    return [...new Set([...pending, ...indexed.rows].map((r) => r.id))].slice(0, limit)
  },
  async indexSearch(db, limit) {
    // Read first, on the reading connection: an idle server's look every 250 ms opens no transaction
    // (nor flushes the log).
    const rows = await db.selectFrom('link_search_pending').select('row').orderBy('row').limit(limit).execute()
    const last = rows.at(-1)?.row
    if (last === undefined) return 0
    return inTransaction(db, async (trx) => {
      // Rows noted since the read, up to `last`, join this batch; CROSS JOIN keeps this order: without
      // statistics SQLite may otherwise walk every link.
      await sql`delete from link_search where rowid in (select row from link_search_pending where row <= ${last} and indexed = 1)`.execute(trx)
      await sql`insert into link_search (rowid, body)
        select p.row, ${searchText} from link_search_pending p cross join link_search_rows m cross join links l
        where p.row <= ${last} and m.row = p.row and l.id = m.link_id`.execute(trx)
      await sql`delete from link_search_pending where row <= ${last}`.execute(trx)
      return rows.length
    })
  },
  unindexed: (column) => sql`+${sql.ref(column)}`,
}

export const postgresAdapter: DialectAdapter = {
  name: 'postgres',
  sharedAcrossInstances: true,
  async lockForTransaction(trx, key) {
    await sql`select pg_advisory_xact_lock(${key})`.execute(trx)
  },
  claimRows: (query) => query.forUpdate().skipLocked(),
  deleteBatch: (db, table, where, limit) => deleted(sql`delete from ${sql.table(table)} where ctid = any(array(${someRows(table, 'ctid', where, limit)}))`, db),
  containsIgnoringCase: (value, text) => sql<SqlBool>`${value} ilike ${containing(text)} escape '\\'`,
  async searchCandidates(db, ownerId, text, limit) {
    const pattern = containing(text)
    // The expression of the index links_search_trgm (migration 0020), as written there.
    const { rows } = await sql<{ id: string }>`(select id from links where owner_id = ${ownerId} and deleted_at is null
        and (coalesce(title, '') || E'\\n' || path || E'\\n' || destination) ilike ${pattern} escape '\\' limit ${limit})
      union (select link_id as id from link_tags where owner_id = ${ownerId} and tag ilike ${pattern} escape '\\' limit ${limit})`.execute(db)
    return rows.map((r) => r.id)
  },
  indexSearch: async () => 0,
  unindexed: (column) => sql.ref(column),
}

/**
 * The start of the UTC bucket of `unit` ms (an hour or a day) holding an epoch-ms column or
 * expression, in SQL: the same arithmetic on both dialects, and the same as `floorTo` (shared/time.ts).
 */
export function bucketStart(value: string | Expression<number>, unit: number): RawBuilder<number> {
  const ref = typeof value === 'string' ? sql.ref(value) : value
  return sql<number>`${ref} - ${ref} % ${sql.lit(unit)}`
}
