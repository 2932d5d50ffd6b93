import assert from 'node:assert/strict'
import { validateHeaderValue } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { up as normalizeStoredDestinations } from '../storage/migrations/0007-normalize-destinations.js'

/** What a visit of each destination must answer in `Location`: the WHATWG serialization (docs/api/links.md#rules-for-fields). */
const SERIALIZED: [input: string, serialized: string][] = [
  ['https://ex.com/日本語', 'https://ex.com/%E6%97%A5%E6%9C%AC%E8%AA%9E'],
  ['https://ex.com/a b?q=x y#frag ment', 'https://ex.com/a%20b?q=x%20y#frag%20ment'],
  ['https://Bücher.Example/straße?ü=ö', 'https://xn--bcher-kva.example/stra%C3%9Fe?%C3%BC=%C3%B6'],
  ['https://ex.com/emoji/🙂', 'https://ex.com/emoji/%F0%9F%99%82'],
  ['HTTPS://EX.COM:443/x', 'https://ex.com/x'],
]

const faultCount = async (s: TestServer, site: string) => {
  const metrics = (await s.request('GET', '/metrics', { token: null })).text
  const line = metrics.split('\n').find((l) => l.startsWith(`linkline_faults_total{site="${site}"}`))
  return Number(line?.split(' ')[1])
}

for (const backend of backends) {
  describe(`destinations are stored and redirected to serialized; one link cannot crash the server (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend })
    })
    after(() => s.close())

    const visit = (path: string) => s.request('GET', path, { token: null })

    test('non-ASCII, spaced and IDN destinations: stored, returned and sent as their serialization', async () => {
      for (const [i, [input, serialized]] of SERIALIZED.entries()) {
        const created = await s.request('POST', '/v1/links', { json: { destination: input, path: `/d-${i}` } })
        assert.equal(created.status, 201, created.text)
        assert.equal(created.body.data.destination, serialized)
        assert.equal((await s.request('GET', `/v1/links/${created.body.data.id}`)).body.data.destination, serialized)
        const r = await visit(`/d-${i}`)
        assert.equal(r.status, 302, `${input}: ${r.text}`)
        assert.equal(r.headers.location, serialized)
        assert.doesNotThrow(() => validateHeaderValue('Location', String(r.headers.location)))
      }
      // The visit's query merges into a serialized destination too.
      const merged = await visit('/d-0?utm=é')
      assert.equal(merged.headers.location, 'https://ex.com/%E6%97%A5%E6%9C%AC%E8%AA%9E?utm=%C3%A9')
      assert.equal((await s.request('GET', '/healthz', { token: null })).status, 200)
    })

    test('update and form bodies serialize the same way; the list filter matches the typed form', async () => {
      const created = await s.request('POST', '/v1/links', { form: { destination: 'https://ex.com/ü ü', path: '/d-form' } })
      assert.equal(created.body.data.destination, 'https://ex.com/%C3%BC%20%C3%BC')
      const updated = await s.request('PUT', `/v1/links/${created.body.data.id}`, { json: { destination: 'https://ex.com/日本' } })
      assert.equal(updated.status, 200, updated.text)
      assert.equal(updated.body.data.destination, 'https://ex.com/%E6%97%A5%E6%9C%AC')
      assert.equal((await visit('/d-form')).headers.location, 'https://ex.com/%E6%97%A5%E6%9C%AC')
      const listed = await s.request('GET', `/v1/links?query[destination]=${encodeURIComponent('https://ex.com/日本')}`)
      assert.deepEqual(
        listed.body.data.map((l: { id: string }) => l.id),
        [created.body.data.id],
      )
    })

    test('a destination holding a control character is 400, on create and on update, in JSON and forms', async () => {
      const existing = (await s.request('POST', '/v1/links', { json: { destination: 'https://ex.com/ok', path: '/d-ctl' } })).body.data
      for (const bad of [
        'https://ex.com/\nx',
        'https://ex.com/\tx',
        'https://ex.com/\rx',
        'https://ex.com/\u0000x',
        'https://ex.com/\u001fx',
        'https://ex.com/\u007fx',
        '\nhttps://ex.com/',
      ]) {
        for (const r of [
          await s.request('POST', '/v1/links', { json: { destination: bad } }),
          await s.request('POST', '/v1/links', { form: { destination: bad } }),
          await s.request('PATCH', `/v1/links/${existing.id}`, { json: { destination: bad } }),
        ]) {
          assert.equal(r.status, 400, JSON.stringify(bad))
          assert.equal(r.body.error.code, 'validation_error')
          assert.equal(r.body.error.param, 'destination')
        }
      }
      assert.equal((await visit('/d-ctl')).headers.location, 'https://ex.com/ok')
    })

    test('a destination too long once percent-encoded is 400', async () => {
      const r = await s.request('POST', '/v1/links', { json: { destination: `https://ex.com/${'日'.repeat(2000)}` } })
      assert.equal(r.status, 400)
      assert.equal(r.body.error.param, 'destination')
      assert.match(r.body.error.message, /percent-encoded/)
    })

    test('a stored destination no header can carry fails its visit alone (500 page), counted, and the server serves on', async () => {
      const created = (await s.request('POST', '/v1/links', { json: { destination: 'https://ex.com/fine', path: '/d-broken' } })).body.data
      const healthy = (await s.request('POST', '/v1/links', { json: { destination: 'https://ex.com/healthy', path: '/d-healthy' } })).body.data
      // As rows written before the rule (or by hand) may hold: bypass the API.
      await sql`update links set destination = ${'https://ex.com/日本\nx'} where id = ${created.id}`.execute(s.container.storage.db)
      s.container.redirectCache.clear()
      const before = await faultCount(s, 'redirect')
      for (let i = 0; i < 2; i++) {
        // The first visit is a cache miss (the database's answer), the second comes from the cache.
        const r = await visit('/d-broken')
        assert.equal(r.status, 500)
        assert.match(String(r.headers['content-type']), /text\/html/)
        assert.match(r.text, /Something went wrong/)
        assert.match(String(r.headers['x-request-id']), /^[\w.:-]+$/)
        assert.equal(r.headers['x-content-type-options'], 'nosniff')
      }
      assert.equal(await faultCount(s, 'redirect'), before + 2)
      assert.equal((await visit('/d-healthy')).headers.location, healthy.destination)
      assert.equal((await s.request('GET', '/healthz', { token: null })).status, 200)
    })

    test('the 0007 migration rewrites stored destinations as their serialization', async () => {
      const created = (await s.request('POST', '/v1/links', { json: { destination: 'https://ex.com/x', path: '/d-migrated' } })).body.data
      await sql`update links set destination = ${'https://Ex.com/日 本\nz'} where id = ${created.id}`.execute(s.container.storage.db)
      await normalizeStoredDestinations(s.container.storage.db as unknown as Kysely<unknown>)
      s.container.redirectCache.clear()
      const r = await visit('/d-migrated')
      assert.equal(r.status, 302)
      assert.equal(r.headers.location, 'https://ex.com/%E6%97%A5%20%E6%9C%ACz')
    })

    test('U+0000 or a lone surrogate in any text field is 400 naming the parameter; U+0000 in an id names no resource', async () => {
      const link = (await s.request('POST', '/v1/links', { json: { destination: 'https://ex.com/', path: '/d-nul' } })).body.data
      const conversation = (await s.request('POST', '/v1/conversations', { json: { contact_id: 'c-nul' } })).body
      const cases: [method: string, path: string, options: Parameters<TestServer['request']>[2], param: string][] = [
        ['POST', '/v1/links', { json: { destination: 'https://ex.com/', title: 'nul\u0000x' } }, 'title'],
        ['POST', '/v1/links', { form: { destination: 'https://ex.com/', title: 'nul\u0000x' } }, 'title'],
        ['PUT', `/v1/links/${link.id}`, { json: { display_name: '\u0000' } }, 'display_name'],
        ['GET', '/v1/links?query[title]=a%00b', {}, 'query[title]'],
        ['GET', `/v1/links?query=${encodeURIComponent('{"path":"/a\\u0000"}')}`, {}, 'query[path]'],
        ['POST', '/v1/conversations', { json: { contact_id: 'c\u0000' } }, 'contact_id'],
        ['GET', '/v1/conversations?group_id=g%00', {}, 'group_id'],
        ['POST', `/v1/conversations/${conversation.id}/messages`, { json: { text: 'hi\u0000' } }, 'text'],
        ['POST', '/v1/domains', { form: { name: 'nul\u0000.example' } }, 'name'],
        // A lone surrogate was stored as U+FFFD while the write answered it as sent (found by the API fuzz test).
        ['POST', '/v1/links', { json: { destination: 'https://ex.com/', title: 'a\ud800b' } }, 'title'],
        ['PUT', `/v1/links/${link.id}`, { json: { title: '\udfff' } }, 'title'],
        ['POST', '/v1/conversations', { json: { contact_id: 'c\udbff' } }, 'contact_id'],
        ['POST', `/v1/conversations/${conversation.id}/messages`, { json: { text: 'hi \ud83d' } }, 'text'],
        ['GET', `/v1/links?query=${encodeURIComponent('{"title":"\\ud800"}')}`, {}, 'query[title]'],
      ]
      for (const [method, path, options, param] of cases) {
        const r = await s.request(method, path, options)
        assert.equal(r.status, 400, `${method} ${path}: ${r.text}`)
        assert.equal(r.body.error.code, 'validation_error')
        assert.equal(r.body.error.param, param)
      }
      const astral = await s.request('POST', '/v1/links', { json: { destination: 'https://ex.com/', title: '😀 e\u0301 \u202e' } })
      assert.equal(astral.body.data?.title, '😀 e\u0301 \u202e', 'a surrogate pair is a character like any other')
      for (const path of ['/v1/links/lnk%00', `/v1/conversations/${conversation.id}%00/messages`, '/v1/domains/x%00.example']) {
        const r = await s.request(path.startsWith('/v1/domains') ? 'DELETE' : 'GET', path)
        assert.equal(r.status, 404, `${path}: ${r.text}`)
        assert.equal(r.body.error.code, 'not_found')
      }
    })
  })
}
