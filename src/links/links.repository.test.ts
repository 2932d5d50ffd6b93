import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { insertLink } from '../../test/factories.js'
import { openTestStorage, type TestStorage } from '../../test/storage.js'
import { createLinksRepository, type LinksRepository } from './links.repository.js'

for (const backend of backends) {
  describe(`links repository (${backend}, no HTTP)`, () => {
    let t: TestStorage
    let repo: LinksRepository
    before(async () => {
      t = await openTestStorage(backend)
      repo = createLinksRepository(t.storage.db)
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
        const rows = await repo.list('pager', {}, offset, 3)
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
      assert.equal((await repo.list('filter', { title: 'Sale' }, 0, 100)).length, 2)
      const both = await repo.list('filter', { title: 'Sale', destination: 'https://a.example/' }, 0, 100)
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
  })
}
