import { sql, type RawBuilder } from 'kysely'
import type { Db, DialectName } from './database.js'

/**
 * Deletes at most `limit` rows of `table` that match `where`, in one short statement, and returns how
 * many went: the unit of work of background deletes (the purge of deleted links, retention), so that
 * no statement holds the write lock, or on SQLite the event loop, for long. Rows are addressed by
 * SQLite's `rowid` or PostgreSQL's `ctid`, so this needs neither the table's key nor `DELETE … LIMIT`
 * (which SQLite has only in some builds and PostgreSQL not at all).
 */
export async function deleteBatch(db: Db, dialect: DialectName, table: string, where: RawBuilder<unknown>, limit: number): Promise<number> {
  const rowId = sql.raw(dialect === 'postgres' ? 'ctid' : 'rowid')
  const some = sql`select ${rowId} from ${sql.table(table)} where ${where} limit ${limit}`
  const statement = dialect === 'postgres'
    ? sql`delete from ${sql.table(table)} where ctid = any(array(${some}))`
    : sql`delete from ${sql.table(table)} where rowid in (${some})`
  return Number((await statement.execute(db)).numAffectedRows ?? 0)
}

/** `column` is one of `values` (at least one), for deleteBatch. */
export const isOneOf = (column: string, values: readonly string[]): RawBuilder<unknown> => sql`${sql.ref(column)} in (${sql.join(values)})`
