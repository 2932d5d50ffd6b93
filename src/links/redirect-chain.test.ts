import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'

for (const backend of backends) {
  describe(`redirect chains through the service's own names (${backend})`, () => {
    let s: TestServer
    let port: string
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_RESERVED_HOSTS: 'api.linkline.test', LINKLINE_DOMAIN_VERIFICATION: 'off' } })
      port = new URL(s.url).port
      assert.equal((await s.request('POST', '/v1/domains', { json: { name: 'go.chain.example' } })).status, 201)
    })
    after(() => s.close())

    const create = (fields: Record<string, unknown>) => s.request('POST', '/v1/links', { json: fields })
    const assertLoop = (r: Awaited<ReturnType<typeof create>>, what: string) => {
      assert.equal(r.status, 400, `${what}: ${r.text}`)
      assert.equal(r.body.error.code, 'validation_error', what)
      assert.equal(r.body.error.param, 'destination', what)
    }

    test('a destination on another name of this very link is a loop', async () => {
      for (const destination of [
        `http://127.0.0.1:${port}/self`,
        `https://127.0.0.1:${port}/self/`,
        `http://[::1]:${port}/self`,
        `http://LOCALHOST:${port}/self?x=1`,
        `http://2130706433:${port}/self`,
        'http://api.linkline.test/self',
      ]) {
        assertLoop(await create({ destination, path: '/self' }), destination)
      }
      assertLoop(await create({ destination: 'http://GO.chain.example:80/self', domain: 'go.chain.example', path: '/self' }), 'custom')
      const elsewhere = await create({ destination: `http://127.0.0.1:${Number(port) === 1 ? 2 : Number(port) - 1}/self`, path: '/self' })
      assert.equal(elsewhere.status, 201, 'another port of the loopback is another server')
    })

    test('A→B→A is refused when either link closes the cycle, by create or update', async () => {
      const a = await create({ destination: `http://localhost:${port}/cycle-b`, path: '/cycle-a' })
      assert.equal(a.status, 201, 'B does not exist yet: no cycle')
      assertLoop(await create({ destination: `http://127.0.0.1:${port}/cycle-a`, path: '/cycle-b' }), 'B→A')
      const b = await create({ destination: 'https://out.example/', path: '/cycle-b' })
      assert.equal(b.status, 201)
      assertLoop(await s.request('PUT', `/v1/links/${b.body.data.id}`, { json: { destination: `http://${s.host}/cycle-a` } }), 'update B→A')
      // Across domains: custom → default → custom.
      const c = await create({ destination: `http://${s.host}/cycle-d`, domain: 'go.chain.example', path: '/cycle-c' })
      assert.equal(c.status, 201)
      assertLoop(await create({ destination: 'http://go.chain.example/cycle-c', path: '/cycle-d' }), 'D→C')
      assert.equal((await s.request('GET', '/cycle-b', { token: null })).headers.location, 'https://out.example/')
    })

    test('a chain longer than five links of this service is refused; one that leaves it is not', async () => {
      let previous = 'https://final.example/'
      for (let i = 1; i <= 5; i++) {
        const r = await create({ destination: previous, path: `/hop-${i}` })
        assert.equal(r.status, 201, `hop ${i}`)
        previous = `http://${s.host}/hop-${i}`
      }
      assertLoop(await create({ destination: previous, path: '/hop-6' }), 'sixth hop')
    })

    test('a link saved in a cycle before the check can still be renamed', async () => {
      const a = await create({ destination: `http://${s.host}/legacy-b`, path: '/legacy-a' })
      const b = await create({ destination: 'https://out.example/', path: '/legacy-b' })
      await sql`update links set destination = ${`http://${s.host}/legacy-a`} where id = ${b.body.data.id}`.execute(s.container.storage.db)
      assert.equal((await s.request('PUT', `/v1/links/${a.body.data.id}`, { json: { title: 'renamed' } })).status, 200)
      assertLoop(await s.request('PUT', `/v1/links/${a.body.data.id}`, { json: { destination: `http://${s.host}/legacy-b/` } }), 'a new destination is checked')
    })

    test('moving a link away from where its own chain passed is not a loop', async () => {
      // M's old destination points where M is going: followed blindly, the old M would look like a loop.
      const m = await create({ destination: `http://${s.host}/move-to`, path: '/move-from' })
      const n = await create({ destination: `http://${s.host}/move-from`, path: '/move-n' })
      assert.equal(n.status, 201)
      const moved = await s.request('PUT', `/v1/links/${m.body.data.id}`, { json: { path: '/move-to', destination: `http://${s.host}/move-n` } })
      assert.equal(moved.status, 200, moved.text)
    })
  })
}
