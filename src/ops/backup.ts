import { existsSync, renameSync, rmSync } from 'node:fs'
import SQLite from 'better-sqlite3'

export class BackupError extends Error {}

/**
 * Copies a SQLite database to `file` with SQLite's online backup API: consistent (what is still in the
 * WAL included), while the server keeps serving. The copy is written beside `file` first and renamed
 * into place, so that an interrupted backup never leaves a truncated file under the name given.
 * PostgreSQL has its own tools (pg_dump), which know its roles, extensions and versions.
 */
export async function backupDatabase(databaseUrl: string, file: string): Promise<{ pages: number }> {
  if (!databaseUrl.startsWith('sqlite:')) {
    throw new BackupError('backup copies a SQLite database; for PostgreSQL use pg_dump -Fc (docs/operations.md, "Backup and restore")')
  }
  const source = databaseUrl.slice('sqlite:'.length)
  if (!existsSync(source)) throw new BackupError(`DATABASE_URL=${databaseUrl}: no such database file`)
  if (existsSync(file)) throw new BackupError(`${file} exists already: give a new file name`)
  const partial = `${file}.partial`
  const db = new SQLite(source, { readonly: true, fileMustExist: true })
  try {
    const { totalPages } = await db.backup(partial)
    renameSync(partial, file)
    return { pages: totalPages }
  } catch (error) {
    rmSync(partial, { force: true })
    throw error
  } finally {
    db.close()
  }
}
