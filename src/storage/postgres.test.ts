import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { needsPostgres } from '../../test/backends.js'
import { createTestDatabase, type TestDatabase } from '../../test/build-test-app.js'
import { loadConfig } from '../config.js'
import { openStorage, type Storage } from './database.js'
import { isDatabaseUnavailable } from './errors.js'
import { migrateToLatest } from './migrate.js'
import { inTransaction } from './transaction.js'

describe('PostgreSQL storage', { skip: needsPostgres }, () => {
  let database: TestDatabase
  let storage: Storage

  before(async () => {
    database = await createTestDatabase('postgres')
    storage = openStorage(loadConfig(database.env))
    await sql`create table counters (id integer primary key, n integer not null)`.execute(storage.db)
    await sql`insert into counters values (1, 0), (2, 0)`.execute(storage.db)
  })
  after(async () => {
    await storage?.close()
    await database?.drop()
  })

  // Deadlocks and serialization failures exist only where several connections write at once.
  test('inTransaction: a transaction chosen as a deadlock victim runs again, and both writes land', async () => {
    let attempts = 0
    // Each takes one row, then wants the other's: PostgreSQL aborts one of them with 40P01.
    const crossing = (first: number, second: number) =>
      inTransaction(storage.db, async (trx) => {
        attempts++
        await sql`update counters set n = n + 1 where id = ${first}`.execute(trx)
        await sleep(100)
        await sql`update counters set n = n + 1 where id = ${second}`.execute(trx)
      })
    await Promise.all([crossing(1, 2), crossing(2, 1)])
    const rows = await sql<{ n: number }>`select n from counters order by id`.execute(storage.db)
    assert.deepEqual(
      rows.rows.map((r) => r.n),
      [2, 2],
    )
    assert.ok(attempts >= 3, `expected a retry, saw ${attempts} attempts`)
  })

  test('DATABASE_STATEMENT_TIMEOUT_MS cancels a slow statement, which counts as unavailable (503)', async () => {
    const impatient = openStorage(loadConfig({ ...database.env, DATABASE_STATEMENT_TIMEOUT_MS: '50' }))
    try {
      await assert.rejects(sql`select pg_sleep(1)`.execute(impatient.db), (error: unknown) => {
        assert.equal((error as { code?: string }).code, '57014')
        return isDatabaseUnavailable(error)
      })
    } finally {
      await impatient.close()
    }
  })

  // Kysely's migrator looks for its table through an introspection of every schema; one dropped in the
  // middle of it (another deployment's, or another test file's) failed the migration with 3F000.
  test('migrations succeed while other schemas of the database are created and dropped', async () => {
    const admin = openStorage(loadConfig({ DATABASE_URL: process.env.TEST_DATABASE_URL as string }))
    let churning = true
    const churn = (async () => {
      const names = Array.from({ length: 50 }, (_, i) => `churn_${process.pid}_${i}`)
      while (churning) {
        await sql.raw(names.map((n) => `create schema ${n};`).join('')).execute(admin.db)
        await sql.raw(`drop schema ${names.join(', ')}`).execute(admin.db)
      }
    })()
    try {
      for (let i = 0; i < 15; i++) {
        const fresh = await createTestDatabase('postgres')
        const other = openStorage(loadConfig(fresh.env))
        try {
          assert.ok((await migrateToLatest(other)).length > 0)
          assert.deepEqual(await migrateToLatest(other), [])
        } finally {
          await other.close()
          await fresh.drop()
        }
      }
    } finally {
      churning = false
      await churn
      await admin.close()
    }
  })
})
