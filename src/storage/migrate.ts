import { Migrator, sql, type DatabaseIntrospector, type Kysely, type Migration, type MigrationProvider } from 'kysely'
import type { Storage } from './database.js'
import { migrations } from './migrations/index.js'

const provider: MigrationProvider = { getMigrations: async () => migrations as Record<string, Migration> }

/**
 * Kysely's migrator over `storage`. On PostgreSQL, Kysely's own tables are pinned to the current
 * schema: otherwise it would take another schema's lock table (several deployments, or test runs, in
 * one database) for its own.
 */
export async function createMigrator(storage: Pick<Storage, 'db' | 'dialect'>): Promise<Migrator> {
  const { db } = storage
  const migrationTableSchema =
    storage.dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined
  return new Migrator({ db: migrationTableSchema === undefined ? db : inSchemaOnly(db, migrationTableSchema), provider, migrationTableSchema })
}

/** Runs every pending migration; throws with the failing migration's name if one fails. */
export async function migrateToLatest(storage: Pick<Storage, 'db' | 'dialect'>): Promise<string[]> {
  const migrator = await createMigrator(storage)
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/**
 * `db` for Kysely's migrator, whose only introspection (does its table exist?) looks at `schema` alone.
 * Kysely's own reads every schema of the database and names each in has_schema_privilege(): a schema
 * dropped meanwhile (another deployment's, a test run's) failed the migration with "schema … does not exist".
 */
function inSchemaOnly<T>(db: Kysely<T>, schema: string): Kysely<T> {
  const introspection: DatabaseIntrospector = {
    getSchemas: async () => [{ name: schema }],
    getTables: async () =>
      (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${schema}`.execute(db)).rows.map((r) => ({
        name: r.name,
        schema,
        isView: false,
        columns: [],
      })),
    getMetadata: async () => ({ tables: await introspection.getTables() }),
  }
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection
      const value: unknown = Reflect.get(target, property, target)
      // Kysely's methods use private fields: they must run on the instance itself, not on the proxy.
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}
