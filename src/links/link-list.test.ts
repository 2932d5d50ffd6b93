import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { CHROME, visit } from '../../test/factories.js'
import { CANDIDATES } from './link-list.js'

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

for (const backend of backends) {
  describe(`the link list: clicks, sort, q and tags (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend })
    })
    after(() => s.close())

    const create = async (fields: Record<string, unknown>, token: string) => {
      const r = await s.request('POST', '/v1/links', { json: { destination: 'https://list.example/', ...fields }, token })
      assert.equal(r.status, 201, r.text)
      return r.body.data.id as string
    }
    const list = (query: string, token: string) => s.request('GET', `/v1/links${query}`, { token })
    const ids = async (query: string, token: string) => {
      const r = await list(query, token)
      assert.equal(r.status, 200, `${query}: ${r.text}`)
      return r.body.data.map((l: { id: string }) => l.id) as string[]
    }
    /** Human visits at chosen times, through the click buffer and the writer thread, then rolled up. */
    const clicked = async (visits: [string, number][]) => {
      for (const [id, at] of visits) s.container.clicks.record(visit(id, at))
      await s.container.clicks.flush()
    }

    test('clicks and lastClickedAt appear on every link object once visits are rolled up; bots are not clicks', async () => {
      const id = await create({ path: '/clicked' }, s.token)
      const before = Date.now()
      for (let i = 0; i < 3; i++) assert.equal((await s.request('GET', '/clicked', { token: null, headers: { 'user-agent': CHROME } })).status, 302)
      assert.equal((await s.request('GET', '/clicked', { token: null, headers: { 'user-agent': 'Twitterbot/1.0' } })).status, 302)
      assert.equal((await s.request('HEAD', '/clicked', { token: null, headers: { 'user-agent': CHROME } })).status, 302)
      await s.container.clicks.flush()

      const link = (await s.request('GET', `/v1/links/${id}`)).body.data
      assert.equal(link.clicks, 3)
      assert.match(link.lastClickedAt, ISO_MS)
      assert.ok(Date.parse(link.lastClickedAt) >= before && Date.parse(link.lastClickedAt) <= Date.now())
      assert.deepEqual((await list('?query[path]=/clicked', s.token)).body.data, [link])
      const patched = (await s.request('PATCH', `/v1/links/${id}`, { json: { title: 'Clicked' } })).body.data
      assert.deepEqual([patched.clicks, patched.lastClickedAt], [3, link.lastClickedAt])
    })

    test('lastClickedAt is the latest human click, whatever order the roll-ups bring them in', async () => {
      const id = await create({}, s.token)
      const at = Date.now() - 3_600_000
      await clicked([
        [id, at + 10_000],
        [id, at],
      ])
      await clicked([[id, at + 5000]])
      const link = (await s.request('GET', `/v1/links/${id}`)).body.data
      assert.deepEqual([link.clicks, link.lastClickedAt], [3, new Date(at + 10_000).toISOString()])
    })

    test('sort by createdAt, clicks and lastClickedAt, each way; ties by id; never-clicked links last both ways', async () => {
      const token = await s.createToken('sorter')
      const [l1, l2, l3, l4, l5] = [await create({}, token), await create({}, token), await create({}, token), await create({}, token), await create({}, token)]
      const t = Date.now() - 3_600_000
      await clicked([
        [l1 as string, t],
        [l1 as string, t + 1000],
        [l4 as string, t + 500],
        [l4 as string, t + 2000],
        ...[0, 1000, 1500, 2500, 3000].map((d): [string, number] => [l3 as string, t + d]),
      ])
      const expected: Record<string, (string | undefined)[]> = {
        '': [l5, l4, l3, l2, l1],
        '?sort=-createdAt': [l5, l4, l3, l2, l1],
        '?sort=createdAt': [l1, l2, l3, l4, l5],
        '?sort=clicks': [l2, l5, l1, l4, l3],
        '?sort=-clicks': [l3, l4, l1, l5, l2],
        '?sort=lastClickedAt': [l1, l4, l3, l2, l5],
        '?sort=-lastClickedAt': [l3, l4, l1, l5, l2],
      }
      for (const [query, order] of Object.entries(expected)) assert.deepEqual(await ids(query, token), order, query)

      // Pages across the clicked and never-clicked links.
      const page = async (query: string) => (await list(query, token)).body
      assert.deepEqual(
        (await page('?sort=lastClickedAt&limit=2&page=2')).data.map((l: { id: string }) => l.id),
        [l3, l2],
      )
      assert.deepEqual((await page('?sort=lastClickedAt&limit=2&page=3')).pagination, { page: 3, limit: 2, hasMore: false })
      assert.deepEqual(
        (await page('?sort=-lastClickedAt&limit=2&page=2')).data.map((l: { id: string }) => l.id),
        [l1, l5],
      )
      assert.deepEqual((await page('?sort=-clicks&limit=3')).pagination, { page: 1, limit: 3, hasMore: true })
      const top = (await page('?sort=-clicks&limit=1')).data[0]
      assert.deepEqual([top.id, top.clicks, top.lastClickedAt], [l3, 5, new Date(t + 3000).toISOString()])
    })

    describe('q', () => {
      let token: string
      const made: Record<string, string> = {}
      before(async () => {
        token = await s.createToken('searcher')
        made.a = await create({ title: 'Summer Sale 2026', path: '/summer-a', destination: 'https://shop.example/a' }, token)
        made.b = await create({ path: '/Launch-Party', destination: 'https://b.example/x' }, token)
        // Paths of their own: a random one could hold any short query.
        made.c = await create({ title: 'Report', path: '/report-c', destination: 'https://news.example/Quarterly-Report?ref=mail' }, token)
        made.d = await create({ path: '/deal-d', destination: 'https://d.example/', tags: ['Black-Friday', 'promo'] }, token)
        made.e = await create({ title: '50% off', path: '/fifty-e', destination: 'https://e.example/' }, token)
        made.f = await create({ title: '50x off', path: '/fifty-f', destination: 'https://f.example/' }, token)
        made.g = await create({ title: 'a_b', path: '/under-g', destination: 'https://g.example/' }, token)
        made.h = await create({ title: 'axb', path: '/axb-h', destination: 'https://h.example/' }, token)
        const other = await s.createToken('not-the-searcher')
        await create({ title: 'Summer Sale 2026', destination: 'https://shop.example/other', tags: ['Black-Friday'] }, other)
        await create({ title: '50% off, a_b', path: '/Launch-Party-too', destination: 'https://news.example/Quarterly-Report' }, other)
      })
      const found = async (q: string, more = '') => (await ids(`?limit=100&q=${encodeURIComponent(q)}${more}`, token)).map((id) => key(id))
      const key = (id: string) => Object.entries(made).find(([, v]) => v === id)?.[0] ?? `another's ${id}`

      test('in the title, path, destination or a tag; any case; anywhere in the text', async () => {
        assert.deepEqual(await found('summer sale'), ['a'])
        assert.deepEqual(await found('SALE 20'), ['a'], 'upper case, in the middle')
        assert.deepEqual(await found('mer sa'), ['a'], 'inside words')
        assert.deepEqual(await found('launch-p'), ['b'], 'path')
        assert.deepEqual(await found('/LAUNCH'), ['b'])
        assert.deepEqual(await found('quarterly-report?REF'), ['c'], 'destination')
        assert.deepEqual(await found('ack-fri'), ['d'], 'a tag')
        assert.deepEqual(await found('PROMO'), ['d'])
        assert.deepEqual(await found('no such text anywhere'), [])
      })

      test('queries under 3 characters scan the owner’s links, with the same rules', async () => {
        assert.deepEqual(await found('SU'), ['a'])
        assert.deepEqual(await found('ck'), ['d'])
        assert.deepEqual(await found('/l'), ['b'])
        assert.deepEqual(await found('z'), [])
      })

      test('% and _ are plain characters', async () => {
        assert.deepEqual(await found('50%'), ['e'])
        assert.deepEqual(await found('0% o'), ['e'])
        assert.deepEqual(await found('%'), ['e'])
        assert.deepEqual(await found('a_b'), ['g'])
        assert.deepEqual(await found('_'), ['g'])
        assert.deepEqual(await found('\\'), [])
      })

      test('an empty q is every link; q combines with the filters and the sorts', async () => {
        assert.equal((await found('')).length, 8)
        assert.deepEqual(await found('off', '&sort=createdAt'), ['e', 'f'])
        assert.deepEqual(await found('off'), ['f', 'e'])
        assert.deepEqual(await found('example', '&query[tag]=promo'), ['d'])
        assert.deepEqual(await found('off', `&query[title]=${encodeURIComponent('50x off')}`), ['f'])
      })

      test('q of 200 characters is accepted, 201 is 400', async () => {
        assert.deepEqual(await found('x'.repeat(200)), [])
        const r = await list(`?q=${'x'.repeat(201)}`, token)
        assert.equal(r.status, 400)
        assert.deepEqual([r.body.error.code, r.body.error.param], ['validation_error', 'q'])
      })
    })

    test(`beyond ${CANDIDATES} matches (a common word, a common tag) the page is the same as below`, async () => {
      const token = await s.createToken('crowd')
      const total = CANDIDATES + 100
      for (let from = 0; from < total; from += 1000) {
        const links = Array.from({ length: Math.min(1000, total - from) }, (_, i) => ({
          destination: `https://crowd.example/item-${from + i}`,
          tags: from + i === 1234 ? ['crowd', 'needle'] : ['crowd'],
        }))
        const r = await s.request('POST', '/v1/links/bulk', { json: { links }, token })
        assert.equal(r.status, 200)
        assert.ok(r.body.data.every((x: { ok: boolean }) => x.ok))
      }
      const newest = await ids('?limit=5', token)
      assert.equal(newest.length, 5)
      assert.deepEqual(await ids('?limit=5&q=CROWD.example', token), newest)
      assert.deepEqual(await ids('?limit=5&query[tag]=crowd', token), newest)
      const last = await list(`?limit=5&page=${total / 5}&q=crowd&sort=createdAt`, token)
      assert.deepEqual([last.body.data.length, last.body.pagination.hasMore], [5, false])
      assert.equal(last.body.data[4].destination, `https://crowd.example/item-${total - 1}`)
      const needle = await ids('?q=item-1234&query[tag]=crowd', token)
      assert.equal(needle.length, 1)
      assert.deepEqual(await ids('?query[tag]=crowd&query[tag]=needle', token), needle)
      assert.deepEqual(await ids('?q=crowd&query[tag]=needle', token), needle)
    })

    test('query[tag] repeated: links carrying every tag; with query[domain]; in the export too', async () => {
      const token = await s.createToken('tagger')
      const t1 = await create({ tags: ['a', 'b'] }, token)
      const t2 = await create({ tags: ['a'] }, token)
      await create({ tags: ['b'] }, token)
      const t4 = await create({ tags: ['c', 'b', 'a'] }, token)
      assert.deepEqual(await ids('?query[tag]=a', token), [t4, t2, t1])
      assert.deepEqual(await ids('?query[tag]=a&query[tag]=b', token), [t4, t1])
      assert.deepEqual(await ids('?query[tag]=a&query[tag]=b&query[tag]=c', token), [t4])
      assert.deepEqual(await ids(`?query=${encodeURIComponent(JSON.stringify({ tag: ['b', 'a'] }))}`, token), [t4, t1])
      assert.deepEqual(await ids(`?query[tag]=a&query[domain]=${s.host.toUpperCase()}`, token), [t4, t2, t1])
      assert.deepEqual(await ids('?query[tag]=a&query[domain]=elsewhere.example', token), [])
      assert.deepEqual(await ids('?query[tag]=a&query[tag]=d', token), [])

      const exported = await s.request('GET', '/v1/links/export?format=ndjson&query[tag]=a&query[tag]=b', { token })
      assert.equal(exported.status, 200)
      assert.deepEqual(
        exported.text
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { id: string }).id),
        [t4, t1],
      )
    })

    test('each parameter error is 400 validation_error naming it', async () => {
      const cases: [string, string][] = [
        ['?sort=bogus', 'sort'],
        ['?sort=clicks-', 'sort'],
        ['?sort=-title', 'sort'],
        ['?sort=CLICKS', 'sort'],
        [`?q=${'q'.repeat(201)}`, 'q'],
        [`?${Array.from({ length: 21 }, (_, i) => `query[tag]=t${i}`).join('&')}`, 'query[tag]'],
        [`?query=${encodeURIComponent('{"tag":[1]}')}`, 'query[tag][0]'],
      ]
      for (const [query, param] of cases) {
        const r = await list(query, s.token)
        assert.equal(r.status, 400, query)
        assert.deepEqual([r.body.error.code, r.body.error.param], ['validation_error', param], query)
      }
      const exported = await s.request('GET', `/v1/links/export?${Array.from({ length: 21 }, () => 'query[tag]=t').join('&')}`)
      assert.deepEqual([exported.status, exported.body.error.param], [400, 'query[tag]'])
    })

    test('the OpenAPI document describes sort, q and the link counters', async () => {
      const doc = (await s.request('GET', '/v1/openapi.json', { token: null })).body
      const parameter = (name: string) => doc.paths['/v1/links'].get.parameters.find((p: { name: string }) => p.name === name)?.schema
      assert.deepEqual(parameter('sort').enum, ['createdAt', '-createdAt', 'clicks', '-clicks', 'lastClickedAt', '-lastClickedAt'])
      assert.equal(parameter('sort').default, '-createdAt')
      assert.equal(parameter('q').maxLength, 200)
      assert.equal(doc.components.schemas.Link.properties.clicks.type, 'integer')
      assert.ok(doc.components.schemas.Link.required.includes('lastClickedAt'))
    })
  })
}
