import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { CHROME } from '../../test/factories.js'
import { clientBlock } from '../http/client-address.js'
import { createPasswordHashing, HashingBusy } from '../shared/password-hashing.js'
import { PASSWORD_TRIES } from './redirect.password.js'

describe('the client a password try counts against (no HTTP)', () => {
  test('an IPv4 address as is, an IPv4-mapped one as IPv4, an IPv6 address by its /64', () => {
    assert.equal(clientBlock('192.0.2.7'), '192.0.2.7')
    assert.equal(clientBlock('::ffff:192.0.2.7'), '192.0.2.7')
    assert.equal(clientBlock('2001:db8:1:2::1'), '2001:db8:1:2::/64')
    assert.equal(clientBlock('2001:0DB8:0001:0002:ffff:eeee:dddd:cccc'), '2001:db8:1:2::/64')
    assert.equal(clientBlock('2001:db8::1'), '2001:db8:0:0::/64')
    assert.equal(clientBlock('2001:db8:0:0:1::'), '2001:db8:0:0::/64')
    assert.equal(clientBlock('::1'), '0:0:0:0::/64')
    assert.equal(clientBlock('64:ff9b::192.0.2.7'), '64:ff9b:0:0::/64')
    assert.equal(clientBlock('fe80::1%eth0'), 'fe80:0:0:0::/64')
  })
})

describe('the fair hashing queue (no HTTP)', () => {
  test("one lane's backlog delays another lane by at most the hashes already running", async () => {
    const queue = createPasswordHashing({ concurrency: 2, laneLimit: 20 })
    const started: string[] = []
    const release: (() => void)[] = []
    const job = (name: string) => () =>
      new Promise<string>((resolve) => {
        started.push(name)
        release.push(() => resolve(name))
      })
    const bulk = Array.from({ length: 10 }, (_, i) => queue.run('owner\nalice', job(`a${i}`)))
    const other = queue.run('owner\nbob', job('b0'))
    const form = queue.run('client\n192.0.2.1', job('c0'))
    assert.deepEqual(started, ['a0', 'a1'])
    const settle = () => new Promise((resolve) => setImmediate(resolve))
    for (let i = 0; i < 3; i++) {
      release.shift()?.()
      await settle()
    }
    // Each lane gets one hash in turn: bob's and the form's wait for one of alice's, not for all ten.
    assert.deepEqual(started, ['a0', 'a1', 'a2', 'b0', 'c0'])
    while (release.length > 0) {
      release.shift()?.()
      await settle()
    }
    assert.deepEqual(await Promise.all([other, form, ...bulk]), ['b0', 'c0', ...bulk.map((_, i) => `a${i}`)])
  })

  test('a lane holds at most its limit waiting; beyond, the work is refused as busy (429)', async () => {
    const queue = createPasswordHashing({ concurrency: 1, laneLimit: 2 })
    let finish = () => {}
    const running = queue.run('client\nx', () => new Promise<void>((resolve) => (finish = resolve)))
    const waiting = [queue.run('client\nx', async () => {}), queue.run('client\nx', async () => {})]
    await assert.rejects(
      queue.run('client\nx', async () => {}),
      (e: unknown) => e instanceof HashingBusy && e.statusCode === 429,
    )
    const elsewhere = queue.run('client\ny', async () => 'y')
    finish()
    await Promise.all([running, ...waiting])
    assert.equal(await elsewhere, 'y')
  })
})

for (const backend of backends) {
  describe(`the password form's guards (${backend})`, () => {
    let s: TestServer
    before(async () => {
      // One trusted proxy: the client is the last X-Forwarded-For entry, as a test can choose it.
      s = await startTestServer({ backend, env: { LINKLINE_TRUST_PROXY: '1' } })
    })
    after(() => s.close())

    const create = async (path: string, password: string) =>
      assert.equal((await s.request('POST', '/v1/links', { json: { destination: `https://p.example${path}`, path, password } })).status, 201)
    const post = (path: string, password: string, headers: Record<string, string>) =>
      s.request('POST', path, { token: null, form: { password }, headers: { 'user-agent': CHROME, ...headers } })
    const from = (address: string, headers: Record<string, string> = {}) => ({ 'x-forwarded-for': address, ...headers })

    test('failed tries count per IPv6 /64 (IPv4-mapped as IPv4): new addresses of one /64 do not get more', async () => {
      await create('/p-six', 'right one')
      for (let i = 1; i <= PASSWORD_TRIES; i++) assert.equal((await post('/p-six', `wrong ${i}`, from(`2001:db8:1:2::${i.toString(16)}`))).status, 401)
      const sameBlock = await post('/p-six', 'right one', from('2001:db8:1:2:ffff:ffff:ffff:fffe'))
      assert.equal(sameBlock.status, 429)
      assert.equal((await post('/p-six', 'right one', from('2001:db8:1:3::1'))).status, 303, 'another /64 is another client')

      await create('/p-four', 'right one')
      for (let i = 0; i < PASSWORD_TRIES; i++) {
        const address = i % 2 === 0 ? '198.51.100.9' : '::ffff:198.51.100.9'
        assert.equal((await post('/p-four', `wrong ${i}`, from(address))).status, 401)
      }
      assert.equal((await post('/p-four', 'right one', from('198.51.100.9'))).status, 429)
      assert.equal((await post('/p-four', 'right one', from('198.51.100.10'))).status, 303, 'another IPv4 address is another client')
    })

    test("another site's page cannot post the form, nor spend a visitor's tries", async () => {
      await create('/p-site', 'right one')
      const visitor = '203.0.113.50'
      const crossSite: Record<string, string>[] = [
        { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
        { 'sec-fetch-site': 'same-site', origin: 'https://other.sho.rt' },
        { origin: 'https://evil.example' },
        { origin: 'not a url' },
      ]
      for (let round = 0; round < 3; round++) {
        for (const headers of crossSite) {
          const r = await post('/p-site', `wrong ${round}`, from(visitor, headers))
          assert.equal(r.status, 403, JSON.stringify(headers))
          assert.match(r.text, /<form method="post">/)
        }
      }
      // Refused even with the right password: the other site learns nothing.
      const right = await post('/p-site', 'right one', from(visitor, { 'sec-fetch-site': 'cross-site' }))
      assert.deepEqual([right.status, right.headers.location], [403, undefined])
      // The visitor's own tries are all still there: the form itself (same-origin; Origin null under no-referrer).
      for (let i = 1; i < PASSWORD_TRIES; i++)
        assert.equal((await post('/p-site', `wrong ${i}`, from(visitor, { 'sec-fetch-site': 'same-origin', origin: 'null' }))).status, 401)
      assert.equal((await post('/p-site', 'right one', from(visitor, { origin: `http://${s.host}` }))).status, 303)
    })
  })
}
