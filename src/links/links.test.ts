import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'

for (const backend of backends) {
  describe(`links (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend })
    })
    after(() => s.close())

    const create = (fields: Record<string, unknown>, token = s.token) => s.request('POST', '/v1/links', { json: fields, token })

    test('create (JSON) returns 201 with the link object', async () => {
      const r = await create({ destination: 'https://shop.example/summer?ref=qr', path: '/sale', title: 'Summer sale' })
      assert.equal(r.status, 201)
      assert.equal(r.body.success, true)
      const link = r.body.data
      assert.match(link.id, /^lnk_[0-9A-Z]{26}$/)
      assert.deepEqual(
        { ...link, id: undefined, createdAt: undefined, updatedAt: undefined },
        {
          id: undefined,
          title: 'Summer sale',
          titleSource: 'user',
          domain: s.host,
          path: '/sale',
          destination: 'https://shop.example/summer?ref=qr',
          shortUrl: `http://${s.host}/sale`,
          createdAt: undefined,
          createdBy: s.actorOf(s.token),
          updatedAt: undefined,
          ownerId: 'alice',
          schemaVersion: '1',
          redirectType: 302,
          expiresAt: null,
          maxClicks: null,
          expiredUrl: null,
          hasPassword: false,
          rules: null,
          tags: [],
          publicStats: false,
          preview: null,
          clicks: 0,
          lastClickedAt: null,
          health: { status: 'unknown', httpStatus: null, checkedAt: null, error: null },
        },
      )
      assert.match(link.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      assert.equal(link.updatedAt, link.createdAt)
    })

    test('create (form) with a random path; title absent is null', async () => {
      const r = await s.request('POST', '/v1/links', { form: { destination: 'https://example.com/' } })
      assert.equal(r.status, 201)
      assert.match(r.body.data.path, /^\/[0-9A-Za-z]{7}$/)
      assert.equal(r.body.data.title, null)
      assert.equal(r.body.data.domain, s.host)
    })

    test('validation of link fields names the parameter', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{}, 'destination'],
        [{ destination: 'javascript:alert(1)' }, 'destination'],
        [{ destination: 'data:text/html,hi' }, 'destination'],
        [{ destination: 'file:///etc/passwd' }, 'destination'],
        [{ destination: '/relative' }, 'destination'],
        [{ destination: 'https://' }, 'destination'],
        [{ destination: `https://a.example/${'x'.repeat(2048)}` }, 'destination'],
        [{ destination: 42 }, 'destination'],
        [{ destination: 'https://a.example', path: 'nos' }, 'path'],
        [{ destination: 'https://a.example', path: '/' }, 'path'],
        [{ destination: 'https://a.example', path: '/a/' }, 'path'],
        [{ destination: 'https://a.example', path: '/a//b' }, 'path'],
        [{ destination: 'https://a.example', path: '/a b' }, 'path'],
        [{ destination: 'https://a.example', path: `/${'a'.repeat(129)}` }, 'path'],
        [{ destination: 'https://a.example', path: '/v1' }, 'path'],
        [{ destination: 'https://a.example', path: '/docs/x' }, 'path'],
        [{ destination: 'https://a.example', path: '/healthz' }, 'path'],
        [{ destination: 'https://a.example', title: 'x'.repeat(256) }, 'title'],
        [{ destination: 'https://a.example', domain: 'not-mine.example' }, 'domain'],
        [{ destination: 'https://a.example', colour: 'red' }, 'colour'],
        [{ destination: `http://${'HOST'}/loop`, path: '/loop' }, 'destination'],
        // Dot segments: browsers resolve them away, so the link could never be visited (found by the API fuzz test).
        [{ destination: 'https://a.example', path: '/a/.' }, 'path'],
        [{ destination: 'https://a.example', path: '/../a' }, 'path'],
      ]
      for (const [fields, param] of cases) {
        const body = JSON.parse(JSON.stringify(fields).replace('HOST', s.host))
        const r = await create(body)
        assert.equal(r.status, 400, JSON.stringify(fields))
        assert.equal(r.body.success, false)
        assert.equal(r.body.error.code, 'validation_error')
        assert.equal(r.body.error.param, param, JSON.stringify(fields))
        assert.ok(r.body.error.message.length > 0)
      }
    })

    test('a path of exactly 128 characters and unicode-length titles are accepted', async () => {
      const r = await create({ destination: 'https://a.example', path: `/${'a'.repeat(128)}`, title: '😀'.repeat(255) })
      assert.equal(r.status, 201)
      assert.equal([...r.body.data.title].length, 255)
    })

    test('a taken domain+path is 409, paths are case-sensitive', async () => {
      assert.equal((await create({ destination: 'https://a.example', path: '/taken' })).status, 201)
      const again = await create({ destination: 'https://b.example', path: '/taken' })
      assert.equal(again.status, 409)
      assert.equal(again.body.error.code, 'conflict')
      assert.equal(again.body.error.param, 'path')
      assert.equal((await create({ destination: 'https://a.example', path: '/TAKEN' })).status, 201)
      const other = await s.createToken('bob')
      assert.equal((await create({ destination: 'https://c.example', path: '/taken' }, other)).status, 409)
    })

    test('two racing creates of the same path: exactly one wins', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => create({ destination: 'https://race.example', path: '/race' })))
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409])
    })

    test('get, update (PUT and PATCH, form and JSON), delete', async () => {
      const { body } = await create({ destination: 'https://a.example/x', path: '/crud', title: 'Old' })
      const id = body.data.id
      assert.deepEqual((await s.request('GET', `/v1/links/${id}`)).body.data, body.data)

      await new Promise((r) => setTimeout(r, 5))
      const put = await s.request('PUT', `/v1/links/${id}`, { form: { path: '/crud2', display_name: 'New' } })
      assert.equal(put.status, 200)
      assert.equal(put.body.data.path, '/crud2')
      assert.equal(put.body.data.title, 'New')
      assert.equal(put.body.data.destination, 'https://a.example/x')
      assert.ok(put.body.data.updatedAt > body.data.updatedAt)
      assert.equal(put.body.data.createdAt, body.data.createdAt)

      const patch = await s.request('PATCH', `/v1/links/${id}`, { json: { destination: 'https://b.example/', title: null } })
      assert.equal(patch.status, 200)
      assert.equal(patch.body.data.destination, 'https://b.example/')
      assert.equal(patch.body.data.title, null)

      const clear = await s.request('PUT', `/v1/links/${id}`, { form: { title: 'T' } })
      assert.equal(clear.body.data.title, 'T')
      assert.equal((await s.request('PUT', `/v1/links/${id}`, { form: { title: '' } })).body.data.title, null)

      const both = await s.request('PUT', `/v1/links/${id}`, { json: { title: 'a', display_name: 'b' } })
      assert.equal(both.status, 400)
      assert.equal(both.body.error.param, 'display_name')

      const del = await s.request('DELETE', `/v1/links/${id}`)
      assert.deepEqual(del.body, { success: true, data: { id, deleted: true } })
      assert.equal((await s.request('GET', `/v1/links/${id}`)).status, 404)
      assert.equal((await s.request('DELETE', `/v1/links/${id}`)).status, 404)
      assert.equal((await create({ destination: 'https://a.example', path: '/crud2' })).status, 201, 'the path is free again')
    })

    test('an update onto a taken path is 409', async () => {
      await create({ destination: 'https://a.example', path: '/upd-a' })
      const b = await create({ destination: 'https://a.example', path: '/upd-b' })
      const r = await s.request('PUT', `/v1/links/${b.body.data.id}`, { json: { path: '/upd-a' } })
      assert.equal(r.status, 409)
      assert.equal(r.body.error.param, 'path')
    })

    test("isolation: another owner's links are 404 and never listed", async () => {
      const bob = await s.createToken('bob')
      const mine = (await create({ destination: 'https://a.example', path: '/alice-only' })).body.data
      for (const [method, json] of [
        ['GET', undefined],
        ['PUT', { title: 'x' }],
        ['PATCH', { title: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        const r = await s.request(method, `/v1/links/${mine.id}`, { token: bob, json })
        assert.equal(r.status, 404, method)
        assert.equal(r.body.error.code, 'not_found')
      }
      const his = (await s.request('POST', '/v1/links', { token: bob, json: { destination: 'https://b.example', path: '/bob-only' } })).body.data
      const list = await s.request('GET', '/v1/links?limit=100', { token: bob })
      // Not vacuous: bob's list holds his link, so a filter that dropped every row would fail here.
      assert.deepEqual(
        list.body.data.map((l: { id: string }) => l.id),
        [his.id],
      )
      assert.equal(list.body.data[0].ownerId, 'bob')
      assert.equal((await s.request('GET', `/v1/links/${mine.id}`)).status, 200)
    })

    describe('list', () => {
      let owner: string
      let ids: string[]
      before(async () => {
        owner = await s.createToken('lister')
        ids = []
        for (let i = 0; i < 25; i++) {
          const r = await create({ destination: `https://list.example/${i % 3}`, title: i % 2 ? 'odd' : 'even' }, owner)
          ids.push(r.body.data.id)
        }
      })
      const list = (query: string) => s.request('GET', `/v1/links${query}`, { token: owner })

      test('default limit 20, newest first, then page 2', async () => {
        const first = await list('')
        assert.equal(first.status, 200)
        assert.equal(first.body.data.length, 20)
        assert.deepEqual(first.body.pagination, { page: 1, limit: 20, hasMore: true })
        assert.deepEqual(
          first.body.data.map((l: { id: string }) => l.id),
          ids.slice().reverse().slice(0, 20),
        )
        const second = await list('?page=2')
        assert.equal(second.body.data.length, 5)
        assert.deepEqual(second.body.pagination, { page: 2, limit: 20, hasMore: false })
        assert.deepEqual(
          second.body.data.map((l: { id: string }) => l.id),
          ids.slice(0, 5).reverse(),
        )
      })

      test('a page beyond the end is empty', async () => {
        const r = await list('?page=9&limit=10')
        assert.deepEqual(r.body.data, [])
        assert.equal(r.body.pagination.hasMore, false)
      })

      test('limit and page out of range or not integers are 400', async () => {
        for (const [query, param] of [
          ['?limit=0', 'limit'],
          ['?limit=101', 'limit'],
          ['?limit=abc', 'limit'],
          ['?limit=1.5', 'limit'],
          ['?limit=-1', 'limit'],
          ['?page=0', 'page'],
          ['?page=x', 'page'],
          ['?sort=asc', 'sort'],
        ]) {
          const r = await list(query as string)
          assert.equal(r.status, 400, query)
          assert.equal(r.body.error.param, param, query)
        }
        assert.equal((await list('?limit=100')).body.data.length, 25)
        assert.equal((await list('?limit=1')).body.data.length, 1)
      })

      test('exact-match filters in bracket and JSON encodings', async () => {
        const bracket = await list('?query[title]=odd&limit=100')
        assert.equal(bracket.body.data.length, 12)
        const json = await list(`?limit=100&query=${encodeURIComponent(JSON.stringify({ title: 'odd', destination: 'https://list.example/1' }))}`)
        assert.ok(json.body.data.length > 0)
        assert.ok(json.body.data.every((l: { title: string; destination: string }) => l.title === 'odd' && l.destination === 'https://list.example/1'))
        assert.equal((await list('?query[title]=od')).body.data.length, 0, 'exact, not prefix')
        assert.equal((await list(`?query[domain]=${s.host.toUpperCase()}&limit=100`)).body.data.length, 25)
        const path = (await list('?limit=1')).body.data[0].path
        assert.equal((await list(`?query[path]=${path}`)).body.data.length, 1)
        const unknown = await list('?query[colour]=red')
        assert.equal(unknown.status, 400)
        assert.equal(unknown.body.error.param, 'query[colour]')
        const unknownJson = await list(`?query=${encodeURIComponent('{"colour":"red"}')}`)
        assert.equal(unknownJson.body.error.param, 'query[colour]')
        assert.equal((await list('?query=notjson')).body.error.param, 'query')
      })
    })
  })
}
