import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { needsPostgres } from '../../test/backends.js'
import { startTestServer } from '../../test/build-test-app.js'
import { insertLink } from '../../test/factories.js'
import { openTestStorage, type TestStorage } from '../../test/storage.js'
import type { Db } from '../storage/database.js'
import { migrateToLatest } from '../storage/migrate.js'
import { createSearchIndexer } from './search-indexer.js'

const pending = async (db: Db) =>
  (await sql<{ row: number; indexed: number }>`select row, indexed from link_search_pending order by row`.execute(db)).rows.map((r) => [r.row, r.indexed])
/** What the FTS5 table alone finds for `text`, without the links not indexed yet. */
const indexed = async (db: Db, text: string) =>
  (
    await sql<{ id: string }>`select m.link_id as id from link_search join link_search_rows m on m.row = link_search.rowid
      where link_search match ${`"${text}"`} order by m.link_id`.execute(db)
  ).rows.map((r) => r.id)

describe('the search index of links, written in batches (sqlite)', () => {
  let t: TestStorage
  let db: Db
  before(async () => {
    t = await openTestStorage('sqlite')
    db = t.storage.db
  })
  after(() => t.close())
  const candidates = (text: string) => t.storage.adapter.searchCandidates(db, 'alice', text, 100)
  const indexAll = async () => {
    while ((await t.storage.adapter.indexSearch(db, 2)) === 2);
  }

  test('a new link is noted, found before it is indexed, and indexed in batches of the limit', async () => {
    const a = await insertLink(db, { id: 'lnk_sa', title: 'Spring sale' })
    const b = await insertLink(db, { id: 'lnk_sb', title: 'Autumn sale' })
    const c = await insertLink(db, { id: 'lnk_sc', title: 'Winter boots' })
    assert.equal((await pending(db)).length, 3)
    assert.deepEqual(
      (await pending(db)).map(([, flag]) => flag),
      [0, 0, 0],
    )
    assert.deepEqual(await indexed(db, 'sale'), [])
    // Not indexed yet: every noted link is a candidate, whatever its text (the list tests each).
    assert.deepEqual((await candidates('sale')).sort(), [a.id, b.id, c.id])

    assert.equal(await t.storage.adapter.indexSearch(db, 2), 2)
    assert.equal((await pending(db)).length, 1)
    assert.equal(await t.storage.adapter.indexSearch(db, 2), 1)
    assert.equal(await t.storage.adapter.indexSearch(db, 2), 0)
    assert.deepEqual(await pending(db), [])
    assert.deepEqual(await indexed(db, 'sale'), [a.id, b.id])
    assert.deepEqual((await candidates('sale')).sort(), [a.id, b.id])
    assert.deepEqual(await candidates('boots'), [c.id])
  })

  test('a changed title or tag is noted as indexed; the old text goes and the new comes when the batch is written', async () => {
    const link = await insertLink(db, { id: 'lnk_sd', title: 'Garden chairs' })
    await indexAll()
    await db.updateTable('links').set({ title: 'Kitchen tables' }).where('id', '=', link.id).execute()
    await db.insertInto('link_tags').values({ link_id: link.id, owner_id: link.owner_id, tag: 'furniture' }).execute()
    const [[, flag]] = (await pending(db)) as [[number, number]]
    assert.deepEqual([(await pending(db)).length, flag], [1, 1])
    assert.deepEqual(await indexed(db, 'garden'), [link.id])
    assert.ok((await candidates('kitchen')).includes(link.id))

    await indexAll()
    assert.deepEqual(await indexed(db, 'garden'), [])
    assert.deepEqual(await indexed(db, 'kitchen'), [link.id])
    assert.deepEqual(await indexed(db, 'furniture'), [link.id])
  })

  test('a link deleted before or after it was indexed leaves no entry and nothing noted', async () => {
    const early = await insertLink(db, { id: 'lnk_se', title: 'Deleted early' })
    await db.deleteFrom('links').where('id', '=', early.id).execute()
    assert.deepEqual(await pending(db), [])
    const late = await insertLink(db, { id: 'lnk_sf', title: 'Deleted late' })
    await indexAll()
    assert.deepEqual(await indexed(db, 'deleted'), [late.id])
    await db.updateTable('links').set({ title: 'Deleted later' }).where('id', '=', late.id).execute()
    await db.deleteFrom('links').where('id', '=', late.id).execute()
    assert.deepEqual(await pending(db), [])
    assert.deepEqual(await indexed(db, 'deleted'), [])
    await indexAll()
    assert.deepEqual(await indexed(db, 'deleted'), [])
  })
})

describe('migration 0030 (sqlite)', () => {
  test('links indexed before it stay indexed and found; links written after it are noted', async () => {
    const t = await openTestStorage('sqlite', '0029-packed-click-blocks')
    const db = t.storage.db
    try {
      const old = await insertLink(db, { title: 'Harvest fair' })
      await migrateToLatest(t.storage)
      assert.deepEqual(await pending(db), [])
      assert.deepEqual(await indexed(db, 'harvest'), [old.id])
      const fresh = await insertLink(db, { title: 'Harvest moon' })
      assert.equal((await pending(db)).length, 1)
      assert.deepEqual((await t.storage.adapter.searchCandidates(db, old.owner_id, 'harvest', 10)).sort(), [old.id, fresh.id].sort())
    } finally {
      await t.close()
    }
  })
})

describe('the search index of links (postgres)', { skip: needsPostgres }, () => {
  test('has nothing to write: pg_trgm indexes each write', async () => {
    const t = await openTestStorage('postgres')
    try {
      await insertLink(t.storage.db, { title: 'Spring sale' })
      assert.equal(await t.storage.adapter.indexSearch(t.storage.db, 200), 0)
    } finally {
      await t.close()
    }
  })
})

describe('the server indexes links in the background', () => {
  test('a link created through the API is in the index soon after its answer, and found by q= all along', async () => {
    const s = await startTestServer({ backend: 'sqlite' })
    try {
      const created = await s.request('POST', '/v1/links', { json: { destination: 'https://index.example/', title: 'Indexed soon' } })
      assert.equal(created.status, 201, created.text)
      const id = created.body.data.id as string
      const found = async () => (await s.request('GET', '/v1/links?q=indexed')).body.data.map((l: { id: string }) => l.id)
      assert.deepEqual(await found(), [id])
      const db = s.container.storage.db
      for (const deadline = Date.now() + 10_000; (await pending(db)).length > 0; await sleep(20)) {
        if (Date.now() > deadline) assert.fail('the link was not indexed within 10 s')
      }
      assert.deepEqual(await indexed(db, 'indexed'), [id])
      assert.deepEqual(await found(), [id])
    } finally {
      await s.close()
    }
  })
})

describe('createSearchIndexer', () => {
  test('a tick batches until a batch is short; a failed round is reported and the next tick tries again; none after stop', async () => {
    const calls: number[] = []
    const errors: unknown[] = []
    let left = 5
    let fail = true
    const indexer = createSearchIndexer({
      batch: 2,
      onError: (error) => errors.push(error),
      index: async (limit) => {
        calls.push(limit)
        if (fail) {
          fail = false
          throw new Error('disk I/O error')
        }
        const n = Math.min(limit, left)
        left -= n
        return n
      },
    })
    const until = async (done: () => boolean) => {
      for (const deadline = Date.now() + 5_000; !done(); await sleep(5)) if (Date.now() > deadline) assert.fail('the indexer did not get there within 5 s')
    }
    indexer.tick()
    indexer.tick()
    await until(() => errors.length === 1)
    indexer.tick()
    await until(() => left === 0 && calls.length === 4)
    assert.equal(errors.length, 1)
    // The failed call, then 2 + 2 + 1: a tick during a round starts none of its own.
    assert.deepEqual(calls, [2, 2, 2, 2])
    assert.equal(left, 0)
    await indexer.stop()
    indexer.tick()
    await sleep(10)
    assert.equal(calls.length, 4)
  })
})
