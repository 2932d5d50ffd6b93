import { accessSync, constants, statSync, statfsSync } from 'node:fs'
import { userInfo } from 'node:os'
import { dirname } from 'node:path'
import { sql } from 'kysely'
import type { Db } from './database.js'
import { inTransaction } from './transaction.js'

/**
 * Free space a SQLite database needs before writes are tried again after a disk-full: room for a
 * journal append of a full batch of visits (about 1 MB) and a roll-up's WAL frames, so that readiness
 * does not come back for the first write to fill the disk again.
 */
export const ROOM_BYTES = 8 * 1024 * 1024
const MIB = 1024 * 1024

const ROLLED_BACK = Symbol('rolled back')
const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code

/** A write this process cannot do for want of room (SQLITE_FULL) or permission (SQLITE_READONLY…), as opposed to a lock or a bug. */
export const isSqliteWriteFault = (error: unknown): boolean => {
  const code = codeOf(error)
  return code === 'SQLITE_FULL' || (typeof code === 'string' && code.startsWith('SQLITE_READONLY'))
}

/**
 * Whether the database at `path` can be written now: a transaction that allocates a page (a table
 * created, then rolled back: nothing is left behind) on the server's own writer connection, and, with
 * `room`, enough free space on the file system (a rolled-back page never reaches the disk). Resolves to
 * the error that stops writes, or undefined.
 */
export async function sqliteWriteProblem(db: Db, path: string, room: boolean): Promise<unknown> {
  try {
    await inTransaction(db, async (trx) => {
      await sql`create table linkline_write_probe (x)`.execute(trx)
      throw ROLLED_BACK
    })
  } catch (error) {
    if (error !== ROLLED_BACK) return error
  }
  if (room && freeBytes(path) < ROOM_BYTES) return Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
  return undefined
}

/** What an operator needs to fix a write fault of the database at `path`: a log line and its fields; undefined for other errors. */
export function explainSqliteFault(path: string, error: unknown): { message: string; fields: Record<string, unknown> } | undefined {
  if (!isSqliteWriteFault(error)) return undefined
  if (codeOf(error) === 'SQLITE_FULL') {
    const free = freeBytes(path)
    return {
      message: `disk full: the database ${path} cannot grow (${(free / MIB).toFixed(1)} MiB free on its file system); writes answer 503 and /readyz 503 until there is room`,
      fields: { database: path, freeBytes: free },
    }
  }
  const uid = process.getuid?.()
  let user = String(uid)
  try {
    user = userInfo().username
  } catch {
    // A uid without a passwd entry (containers): the number says it.
  }
  const file = statSync(path, { throwIfNoEntry: false })
  const mode = file === undefined ? undefined : `0${(file.mode & 0o777).toString(8)}`
  const folder = dirname(path)
  let folderWritable = true
  try {
    accessSync(folder, constants.W_OK)
  } catch {
    folderWritable = false
  }
  return {
    message:
      `the database ${path} cannot be written by user ${user} (uid ${uid}): the file is mode ${mode} owned by uid ${file?.uid}` +
      `${folderWritable ? '' : `, and its folder ${folder} is not writable (SQLite writes its -wal and -shm files there)`}` +
      '; writes answer 503 and /readyz 503 until it can',
    fields: { database: path, user, uid, mode, owner: file?.uid, folderWritable },
  }
}

function freeBytes(path: string): number {
  try {
    const fs = statfsSync(dirname(path))
    return fs.bavail * fs.bsize
  } catch {
    return Number.NaN
  }
}
