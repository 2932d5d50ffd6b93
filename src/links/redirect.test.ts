import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'

for (const backend of backends) {
  describe(`redirect (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    })
    after(() => s.close())

    const link = async (fields: Record<string, unknown>) => {
      const r = await s.request('POST', '/v1/links', { json: fields })
      assert.equal(r.status, 201, r.text)
      return r.body.data as { id: string; path: string }
    }
    const visit = (path: string, options: { method?: string; host?: string; headers?: Record<string, string> } = {}) =>
      s.request(options.method ?? 'GET', path, { token: null, headers: { ...(options.host ? { host: options.host } : {}), ...options.headers } })

    test('302 with Location, Cache-Control and a request id; no token needed', async () => {
      await link({ destination: 'https://shop.example/summer?ref=qr', path: '/r-basic' })
      const r = await visit('/r-basic')
      assert.equal(r.status, 302)
      assert.equal(r.headers.location, 'https://shop.example/summer?ref=qr')
      assert.equal(r.headers['cache-control'], 'private, no-store')
      assert.match(String(r.headers['x-request-id']), /^[\w.:-]+$/)
      assert.equal(r.text, '')
    })

    test('HEAD answers like GET without a body', async () => {
      await link({ destination: 'https://head.example/', path: '/r-head' })
      const r = await visit('/r-head', { method: 'HEAD' })
      assert.equal(r.status, 302)
      assert.equal(r.headers.location, 'https://head.example/')
      assert.equal((await visit('/r-head-missing', { method: 'HEAD' })).status, 404)
    })

    test("the visit's query merges into the destination's, the visit's values win", async () => {
      await link({ destination: 'https://q.example/p?ref=qr&keep=1', path: '/r-query' })
      const r = await visit('/r-query?ref=mail&utm_source=x&utm_source=y')
      const location = new URL(String(r.headers.location))
      assert.equal(location.origin + location.pathname, 'https://q.example/p')
      assert.equal(location.searchParams.get('ref'), 'mail')
      assert.equal(location.searchParams.get('keep'), '1')
      assert.deepEqual(location.searchParams.getAll('utm_source'), ['x', 'y'])
    })

    test('the QR marker never reaches the destination', async () => {
      await link({ destination: 'https://qr.example/p?a=1', path: '/r-qr' })
      assert.equal((await visit('/r-qr?qr=1')).headers.location, 'https://qr.example/p?a=1')
      assert.equal((await visit('/r-qr?qr=1&b=2')).headers.location, 'https://qr.example/p?a=1&b=2')
    })

    test('a trailing slash is ignored; paths are case-sensitive', async () => {
      await link({ destination: 'https://slash.example/', path: '/r-slash/deep' })
      assert.equal((await visit('/r-slash/deep/')).status, 302)
      assert.equal((await visit('/r-slash/deep/?x=1')).headers.location, 'https://slash.example/?x=1')
      assert.equal((await visit('/R-SLASH/deep')).status, 404)
    })

    test('an unknown path is a 404 HTML page', async () => {
      const r = await visit('/does-not-exist')
      assert.equal(r.status, 404)
      assert.match(String(r.headers['content-type']), /^text\/html/)
      assert.match(r.text, /Link not found/)
      assert.ok(r.headers['x-request-id'])
    })

    test('an unknown host resolves against the first default domain', async () => {
      await link({ destination: 'https://host.example/', path: '/r-host' })
      assert.equal((await visit('/r-host', { host: 'unknown.example' })).headers.location, 'https://host.example/')
      assert.equal((await visit('/r-host', { host: '127.0.0.1:1' })).status, 302)
    })

    test('a custom domain redirects its own links only', async () => {
      assert.equal((await s.request('POST', '/v1/domains', { json: { name: 'go.custom.example' } })).status, 201)
      await link({ destination: 'https://custom.example/', path: '/r-custom', domain: 'go.custom.example' })
      await link({ destination: 'https://default.example/', path: '/r-default-only' })
      assert.equal((await visit('/r-custom', { host: 'go.custom.example' })).headers.location, 'https://custom.example/')
      assert.equal((await visit('/r-custom', { host: 'GO.CUSTOM.EXAMPLE' })).status, 302)
      assert.equal((await visit('/r-custom')).status, 404, 'not on the default domain')
      assert.equal((await visit('/r-default-only', { host: 'go.custom.example' })).status, 404, 'a known custom host does not fall back')
    })

    test('an update or delete is seen by the very next redirect', async () => {
      const { id } = await link({ destination: 'https://v1.example/', path: '/r-live' })
      assert.equal((await visit('/r-live')).headers.location, 'https://v1.example/')
      await s.request('PATCH', `/v1/links/${id}`, { json: { destination: 'https://v2.example/' } })
      assert.equal((await visit('/r-live')).headers.location, 'https://v2.example/')
      await s.request('PATCH', `/v1/links/${id}`, { json: { path: '/r-live-moved' } })
      assert.equal((await visit('/r-live')).status, 404)
      assert.equal((await visit('/r-live-moved')).headers.location, 'https://v2.example/')
      await s.request('DELETE', `/v1/links/${id}`)
      assert.equal((await visit('/r-live-moved')).status, 404)
    })

    test('a path visited while free is found as soon as a link takes it', async () => {
      assert.equal((await visit('/r-later')).status, 404)
      await link({ destination: 'https://later.example/', path: '/r-later' })
      assert.equal((await visit('/r-later')).status, 302)
    })

    test("the client's X-Request-Id is echoed on redirects", async () => {
      await link({ destination: 'https://id.example/', path: '/r-id' })
      assert.equal((await visit('/r-id', { headers: { 'x-request-id': 'trace-123' } })).headers['x-request-id'], 'trace-123')
      const unsafe = await visit('/r-id', { headers: { 'x-request-id': 'bad id with spaces' } })
      // Replaced by a generated id, not dropped: a missing header must fail here too.
      assert.match(String(unsafe.headers['x-request-id']), /^[0-9a-f-]{36}$/)
    })

    test('reserved paths are not redirects on the default domain', async () => {
      assert.equal((await visit('/healthz')).status, 200)
      assert.equal((await visit('/v1/links')).status, 401)
    })
  })
}

describe('redirect with LINKLINE_NOT_FOUND_URL', () => {
  let s: TestServer
  before(async () => {
    s = await startTestServer({ env: { LINKLINE_NOT_FOUND_URL: 'https://fallback.example/missing' } })
  })
  after(() => s.close())

  test('an unknown path redirects to the configured fallback', async () => {
    const r = await s.request('GET', '/nothing-here', { token: null })
    assert.equal(r.status, 302)
    assert.equal(r.headers.location, 'https://fallback.example/missing')
  })
})
