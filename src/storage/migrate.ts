import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely'
import type { Storage } from './database.js'
import { migrations } from './migrations/index.js'

const provider: MigrationProvider = { getMigrations: async () => migrations as Record<string, Migration> }

/**
 * Runs every pending migration; throws with the failing migration's name if one fails. On
 * PostgreSQL, Kysely's own tables are pinned to the current schema: otherwise it would take another
 * schema's lock table (several deployments, or test runs, in one database) for its own.
 */
export async function migrateToLatest(storage: Pick<Storage, 'db' | 'dialect'>): Promise<string[]> {
  const { db } = storage
  const migrationTableSchema =
    storage.dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined
  const { error, results } = await new Migrator({ db, provider, migrationTableSchema }).migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
