import { Migrator, type Migration, type MigrationProvider } from 'kysely'
import type { Db } from './database.js'
import { migrations } from './migrations/index.js'

const provider: MigrationProvider = { getMigrations: async () => migrations as Record<string, Migration> }

/** Runs every pending migration; throws with the failing migration's name if one fails. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`)
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
