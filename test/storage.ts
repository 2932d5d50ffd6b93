import { loadConfig } from '../src/config.js'
import { openStorage, type Storage } from '../src/storage/database.js'
import { createMigrator, migrateToLatest } from '../src/storage/migrate.js'
import type { migrations } from '../src/storage/migrations/index.js'
import type { Backend } from './backends.js'
import { createTestDatabase, type TestDatabase } from './build-test-app.js'

export interface TestStorage {
  readonly storage: Storage
  readonly database: TestDatabase
  close(): Promise<void>
}

/**
 * A migrated database of its own, without a server: for repository and service tests ("medium"
 * tests, as Immich calls them), which build the real repositories over `storage.db`. With `migration`,
 * migrated up to that one only (a migration's test then fills the tables it starts from).
 */
export async function openTestStorage(backend: Backend, migration?: keyof typeof migrations): Promise<TestStorage> {
  const database = await createTestDatabase(backend)
  const storage = openStorage(loadConfig(database.env))
  try {
    if (migration === undefined) await migrateToLatest(storage)
    else {
      const migrator = await createMigrator(storage)
      const { error } = await migrator.migrateTo(migration)
      if (error !== undefined) throw error
    }
  } catch (error) {
    await storage.close()
    await database.drop()
    throw error
  }
  return {
    storage,
    database,
    async close() {
      await storage.close()
      await database.drop()
    },
  }
}
