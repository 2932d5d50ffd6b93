import { sql, type Expression, type RawBuilder, type SelectQueryBuilder } from 'kysely'
import type { Db } from './database.js'
import type { Transaction } from './transaction.js'

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
}

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
}

export const postgresAdapter: DialectAdapter = {
  name: 'postgres',
  sharedAcrossInstances: true,
  async lockForTransaction(trx, key) {
    await sql`select pg_advisory_xact_lock(${key})`.execute(trx)
  },
  claimRows: (query) => query.forUpdate().skipLocked(),
  deleteBatch: (db, table, where, limit) => deleted(sql`delete from ${sql.table(table)} where ctid = any(array(${someRows(table, 'ctid', where, limit)}))`, db),
}

/**
 * The start of the UTC bucket of `unit` ms (an hour or a day) holding an epoch-ms column or
 * expression, in SQL: the same arithmetic on both dialects, and the same as `floorTo` (shared/time.ts).
 */
export function bucketStart(value: string | Expression<number>, unit: number): RawBuilder<number> {
  const ref = typeof value === 'string' ? sql.ref(value) : value
  return sql<number>`${ref} - ${ref} % ${sql.lit(unit)}`
}
