import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import SQLite from 'better-sqlite3'
import { insertLink } from '../../test/factories.js'
import { openTestStorage, type TestStorage } from '../../test/storage.js'
import { isSqliteBusy } from './errors.js'
import { withStatementCache } from './statement-cache.js'

describe('SQLite driver (no HTTP)', () => {
  let t: TestStorage
  let file: string
  before(async () => {
    t = await openTestStorage('sqlite')
    file = (t.database.env.DATABASE_URL as string).slice('sqlite:'.length)
  })
  after(() => t.close())

  test('while another connection holds BEGIN IMMEDIATE: reads answer, a write fails SQLITE_BUSY, and succeeds once the lock is gone', async () => {
    const link = await insertLink(t.storage.db, { path: '/busy' })
    const holder = new SQLite(file)
    holder.exec('begin immediate')
    try {
      // A read runs on the reader connection: WAL readers do not wait for the writer.
      const read = await t.storage.db.selectFrom('links').select('id').where('id', '=', link.id).executeTakeFirst()
      assert.equal(read?.id, link.id)
      await assert.rejects(t.storage.db.updateTable('links').set({ title: 'locked' }).where('id', '=', link.id).execute(), (error: unknown) =>
        isSqliteBusy(error),
      )
      // A transaction too: BEGIN IMMEDIATE waits for the lock, then gives up the same way.
      await assert.rejects(
        t.storage.db.transaction().execute(async (trx) => {
          await trx.updateTable('links').set({ title: 'locked' }).where('id', '=', link.id).execute()
        }),
        (error: unknown) => isSqliteBusy(error),
      )
    } finally {
      holder.exec('rollback')
      holder.close()
    }
    await t.storage.db.updateTable('links').set({ title: 'free' }).where('id', '=', link.id).execute()
    const row = await t.storage.db.selectFrom('links').select('title').where('id', '=', link.id).executeTakeFirst()
    assert.equal(row?.title, 'free')
  })
})

describe('statement cache', () => {
  test('the same SQL text is prepared once and reused; the cache is bounded (LRU)', () => {
    const sqlite = new SQLite(':memory:')
    let prepared = 0
    const counting = new Proxy(sqlite, {
      get(target, key, receiver) {
        if (key === 'prepare') return (sql: string) => (prepared++, target.prepare(sql))
        const value = Reflect.get(target, key, receiver) as unknown
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const db = withStatementCache(counting, 2)
    const a = db.prepare('select 1 as one')
    assert.equal(db.prepare('select 1 as one'), a, 'the same statement object')
    assert.equal(prepared, 1)
    db.prepare('select 2 as two')
    db.prepare('select 3 as three')
    assert.equal(prepared, 3)
    // 'select 1' was the least recently used of three in a cache of two: prepared again.
    assert.notEqual(db.prepare('select 1 as one'), a)
    assert.equal(prepared, 4)
    assert.deepEqual(db.prepare('select 2 as two').all([]), [{ two: 2 }])
    db.close()
    assert.equal(sqlite.open, false)
  })
})
