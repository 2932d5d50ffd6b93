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
    throw new Error(`DATABASE_URL=${redactPassword(config.databaseUrl)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
}
