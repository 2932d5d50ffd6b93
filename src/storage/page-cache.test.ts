import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { sql } from 'kysely'
import { openStorage, SQLITE_CACHE_SIZE } from './database.js'

test('a SQLite connection keeps a page cache of SQLITE_CACHE_SIZE, not the driver default of 16 MiB', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-page-cache-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const storage = openStorage({ databaseUrl: `sqlite:${join(dir, 'db.sqlite')}`, databasePoolSize: 1, databaseStatementTimeoutMs: 0 })
  try {
    const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(storage.db)
    assert.deepEqual(rows, [{ cache_size: SQLITE_CACHE_SIZE }])
    assert.ok(SQLITE_CACHE_SIZE > -16000)
  } finally {
    await storage.close()
  }
})
