import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { insertLink, linkRow } from '../../test/factories.js'
import { openTestStorage, type TestStorage } from '../../test/storage.js'
import type { LinkSort } from './link-list.js'
import { createLinksRepository, type LinksRepository } from './links.repository.js'

const NEWEST: LinkSort = { column: 'created_at', descending: true }

for (const backend of backends) {
  describe(`links repository (${backend}, no HTTP)`, () => {
    let t: TestStorage
    let repo: LinksRepository
    before(async () => {
      t = await openTestStorage(backend)
      repo = createLinksRepository(t.storage.db, t.storage.adapter)
    })
    after(() => t.close())

    test('pages run newest first, ties broken by id, without gaps or repeats; one row more tells that more follow', async () => {
      const base = Date.UTC(2026, 5, 1)
      // Five links, two of them created in the same millisecond.
      const made = []
      for (const [i, at] of [base, base + 1, base + 1, base + 2, base + 3].entries()) {
        made.push(await insertLink(t.storage.db, { owner_id: 'pager', created_at: at, path: `/p${i}` }))
      }
      await insertLink(t.storage.db, { owner_id: 'someone-else', created_at: base + 10 })
      const expected = [...made].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1)).map((r) => r.id)
      const seen: string[] = []
      for (let offset = 0; offset < 6; offset += 2) {
        const rows = await repo.list('pager', { filters: {} }, NEWEST, offset, 3)
        seen.push(...rows.slice(0, 2).map((r) => r.id))
        assert.equal(rows.length > 2, offset + 2 < 5, `more after offset ${offset}`)
      }
      assert.deepEqual(seen, expected)
    })

    test('filters are exact and combine; another owner is never listed', async () => {
      await insertLink(t.storage.db, { owner_id: 'filter', title: 'Sale', destination: 'https://a.example/' })
      await insertLink(t.storage.db, { owner_id: 'filter', title: 'Sale', destination: 'https://b.example/' })
      await insertLink(t.storage.db, { owner_id: 'filter', title: 'sale', destination: 'https://a.example/' })
      await insertLink(t.storage.db, { owner_id: 'other', title: 'Sale', destination: 'https://a.example/' })
      assert.equal((await repo.list('filter', { filters: { title: 'Sale' } }, NEWEST, 0, 100)).length, 2)
      const both = await repo.list('filter', { filters: { title: 'Sale', destination: 'https://a.example/' } }, NEWEST, 0, 100)
      assert.deepEqual(
        both.map((r) => [r.owner_id, r.title, r.destination]),
        [['filter', 'Sale', 'https://a.example/']],
      )
    })

    test('anyOnDomain and linksPerDomain see every owner', async () => {
      await insertLink(t.storage.db, { owner_id: 'x', domain: 'one.example' })
      await insertLink(t.storage.db, { owner_id: 'y', domain: 'one.example' })
      assert.equal(await repo.anyOnDomain('one.example'), true)
      assert.equal(await repo.anyOnDomain('none.example'), false)
      assert.deepEqual(
        (await repo.linksPerDomain()).find((d) => d.domain === 'one.example'),
        { domain: 'one.example', links: 2 },
      )
    })

    test('the search index follows every write: create with tags, change of title and tags, a tag alone, the purge', async () => {
      // Once indexed (SQLite writes its index in batches, search-index.test.ts): before that, every noted link is a candidate.
      const find = async (text: string) => {
        await t.storage.adapter.indexSearch(t.storage.db, 100)
        return t.storage.adapter.searchCandidates(t.storage.db, 'finder', text, 10)
      }
      const row = linkRow({ owner_id: 'finder', title: 'Spring Fair', destination: 'https://fair.example/tickets' })
      await repo.insert(row, ['Outdoor'])
      assert.deepEqual([await find('spring f'), await find('TICKETS'), await find('outdoor')], [[row.id], [row.id], [row.id]])
      await repo.update('finder', row.id, { title: 'Winter Market' }, ['Indoor', 'market'])
      assert.deepEqual([await find('spring'), await find('outdoor')], [[], []])
      assert.deepEqual([await find('winter mar'), await find('indoor'), await find('tickets')], [[row.id], [row.id], [row.id]])
      await t.storage.db.deleteFrom('link_tags').where('link_id', '=', row.id).where('tag', '=', 'Indoor').execute()
      assert.deepEqual([await find('indoor'), await find('market')], [[], [row.id]])
      await repo.markDeleted('finder', row.id, Date.now())
      assert.deepEqual(await repo.list('finder', { filters: {}, q: 'market' }, NEWEST, 0, 10), [], 'a tombstone is never listed')
      await repo.deletePurged(row.id)
      assert.deepEqual([await find('market'), await find('tickets')], [[], []])
    })
  })
}
