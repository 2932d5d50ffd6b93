import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'

for (const backend of backends) {
  describe(`domains (${backend})`, () => {
    let s: TestServer
    let bob: string
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_DOMAINS: 'sho.rt,second.example' } })
      bob = await s.createToken('bob')
    })
    after(() => s.close())

    test('lists the default domains first, then your own', async () => {
      const r = await s.request('GET', '/v1/domains')
      assert.equal(r.status, 200)
      assert.deepEqual(r.body, {
        success: true,
        data: [
          { name: 'sho.rt', isDefault: true, createdAt: null },
          { name: 'second.example', isDefault: true, createdAt: null },
        ],
      })
      const created = await s.request('POST', '/v1/domains', { form: { name: 'Go.Alice.Example' } })
      assert.equal(created.status, 201)
      assert.equal(created.body.data.name, 'go.alice.example')
      assert.equal(created.body.data.isDefault, false)
      const mine = (await s.request('GET', '/v1/domains')).body.data.map((d: { name: string }) => d.name)
      assert.deepEqual(mine, ['sho.rt', 'second.example', 'go.alice.example'])
      const bobs = (await s.request('GET', '/v1/domains', { token: bob })).body.data.map((d: { name: string }) => d.name)
      assert.deepEqual(bobs, ['sho.rt', 'second.example'])
    })

    test('a claimed or default domain is 409; a bad name is 400', async () => {
      await s.request('POST', '/v1/domains', { json: { name: 'claimed.example' } })
      for (const [token, name] of [[bob, 'claimed.example'], [s.token, 'claimed.example'], [bob, 'sho.rt']] as const) {
        const r = await s.request('POST', '/v1/domains', { json: { name }, token })
        assert.equal(r.status, 409)
        assert.equal(r.body.error.code, 'conflict')
        assert.equal(r.body.error.param, 'name')
      }
      for (const name of ['', 'has space.example', 'a..b', '-lead.example', 'x'.repeat(300), 'https://x.example']) {
        const r = await s.request('POST', '/v1/domains', { json: { name } })
        assert.equal(r.status, 400, name)
        assert.equal(r.body.error.param, 'name', name)
      }
      assert.equal((await s.request('POST', '/v1/domains', { json: { name: 'with-port.example:8443' } })).status, 201)
      assert.equal((await s.request('POST', '/v1/domains', { json: {} })).body.error.param, 'name')
    })

    test('links on a custom domain; only its owner may use it', async () => {
      await s.request('POST', '/v1/domains', { json: { name: 'links.alice.example' } })
      const ok = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: 'LINKS.alice.example', path: '/x' } })
      assert.equal(ok.status, 201)
      assert.equal(ok.body.data.domain, 'links.alice.example')
      assert.equal(ok.body.data.shortUrl, 'http://links.alice.example/x')
      const reserved = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: 'links.alice.example', path: '/docs' } })
      assert.equal(reserved.status, 201, 'reserved paths are reserved on default domains only')
      const theirs = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: 'links.alice.example' }, token: bob })
      assert.equal(theirs.status, 400)
      assert.equal(theirs.body.error.param, 'domain')
      const second = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: 'second.example', path: '/x' } })
      assert.equal(second.status, 201, 'the same path on another domain is another link')
    })

    test('delete: 409 while links use it, 404 for others, 400 for a default domain', async () => {
      await s.request('POST', '/v1/domains', { json: { name: 'busy.example' } })
      const { body } = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', domain: 'busy.example' } })
      const busy = await s.request('DELETE', '/v1/domains/busy.example')
      assert.equal(busy.status, 409)
      assert.equal(busy.body.error.code, 'conflict')
      assert.equal((await s.request('DELETE', '/v1/domains/busy.example', { token: bob })).status, 404)
      assert.equal((await s.request('DELETE', '/v1/domains/nobody.example')).status, 404)
      const def = await s.request('DELETE', '/v1/domains/sho.rt')
      assert.equal(def.status, 400)
      assert.equal(def.body.error.param, 'name')
      await s.request('DELETE', `/v1/links/${body.data.id}`)
      const freed = await s.request('DELETE', '/v1/domains/busy.example')
      assert.deepEqual(freed.body, { success: true, data: { name: 'busy.example', deleted: true } })
      assert.equal((await s.request('POST', '/v1/domains', { json: { name: 'busy.example' }, token: bob })).status, 201, 'free to claim again')
    })

    test('new links default to the first default domain', async () => {
      const r = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example' } })
      assert.equal(r.body.data.domain, 'sho.rt')
    })
  })
}
