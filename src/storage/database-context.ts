import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { userInfo } from 'node:os'
import { dirname } from 'node:path'
import type { Config } from '../config.js'

/** DATABASE_URL as the logs may show it. */
export const redactPassword = (databaseUrl: string) => databaseUrl.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:)[^@]*@/, '$1***@')

/**
 * Runs `work` (opening, migrating or loading from the database) so that its failure names the setting:
 * "unable to open database file" or "ECONNREFUSED" alone say neither which setting nor which database.
 */
export async function withDatabaseContext<T>(config: Config, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    const cause = (error as { code?: unknown } | undefined)?.code === 'SQLITE_CANTOPEN' ? whySqliteCannotOpen(config.databaseUrl) : undefined
    const message = `${error instanceof Error ? error.message : String(error)}${cause === undefined ? '' : `: ${cause}`}`
    throw new Error(`DATABASE_URL=${redactPassword(config.databaseUrl)}: ${message}`, { cause: error })
  }
}

/**
 * SQLite says "unable to open database file" whatever the reason. The usual ones, after a restore or
 * a change of service user: the file or its folder belongs to another user, or the path is a folder.
 */
function whySqliteCannotOpen(databaseUrl: string): string | undefined {
  const path = databaseUrl.slice('sqlite:'.length)
  if (existsSync(path) && statSync(path).isDirectory()) return `${path} is a directory, not a database file`
  const user = userInfo()
  const denied = (what: string) => `permission denied: the user ${user.username} (uid ${user.uid}) cannot ${what}`
  // The folder too: SQLite writes its -wal and -shm files beside the database.
  for (const [target, mode, what] of [
    [path, constants.R_OK | constants.W_OK, `read and write ${path}`],
    [dirname(path), constants.W_OK | constants.X_OK, `create files in ${dirname(path)}`],
  ] as const) {
    if (!existsSync(target)) continue
    try {
      accessSync(target, mode)
    } catch {
      return denied(what)
    }
  }
  return undefined
}
