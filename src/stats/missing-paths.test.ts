import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestServer } from '../../test/build-test-app.js'
import { CHROME } from '../../test/factories.js'
import { movableClock } from '../../test/movable-clock.js'

const DAY = 86_400_000
const HOUR = 3_600_000
const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

interface Row {
  domain: string
  path: string
  clicks: number
  lastAt: string
}

for (const backend of backends) {
  describe(`visits to missing paths (${backend})`, () => {
    let s: TestServer
    let bob: string
    let boot: string
    const clock = movableClock()
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_DOMAIN_VERIFICATION: 'off' }, container: { clock } })
      bob = await s.createToken('bob')
      // The bootstrap workspace (LINKLINE_BOOTSTRAP_OWNER's default).
      boot = await s.createToken('default')
      for (const [name, token] of [
        ['go.alice.example', s.token],
        ['links.alice.example', s.token],
        ['go.bob.example', bob],
      ] as const) {
        assert.equal((await s.request('POST', '/v1/domains', { json: { name }, token })).status, 201)
      }
    })
    after(() => s.close())

    const visit = (host: string, path: string, options: { method?: string; userAgent?: string | null } = {}) =>
      s.request(options.method ?? 'GET', path, {
        token: null,
        headers: { host, ...(options.userAgent === null ? {} : { 'user-agent': options.userAgent ?? CHROME }) },
      })
    const notFound = async (token: string, query = '') => {
      await s.container.missingPaths.flush()
      const r = await s.request('GET', `/v1/stats/not-found${query}`, { token })
      assert.equal(r.status, 200, r.text)
      return r.body.data as Row[]
    }
    const on = (rows: Row[], domain: string) => rows.filter((r) => r.domain === domain).map(({ path, clicks }) => ({ path, clicks }))

    test("human visits are counted per path, on the caller's verified domains only", async () => {
      const at = clock.now()
      for (let i = 0; i < 3; i++) assert.equal((await visit('go.alice.example', '/flyer')).status, 404)
      await visit('go.alice.example', '/flyer/')
      await visit('go.alice.example', '/typo')
      await visit('go.alice.example', '/')
      await visit('links.alice.example', '/old')
      // Not people: a crawler, a HEAD, no User-Agent at all.
      await visit('go.alice.example', '/flyer', { userAgent: BOT })
      await visit('go.alice.example', '/flyer', { method: 'HEAD' })
      await visit('go.alice.example', '/flyer', { userAgent: null })
      // A link that exists is no missing path; its + of a link without public statistics is one.
      const link = await s.request('POST', '/v1/links', { json: { destination: 'https://dest.example/', domain: 'go.alice.example', path: '/there' } })
      assert.equal(link.status, 201)
      assert.equal((await visit('go.alice.example', '/there')).status, 302)
      await visit('go.alice.example', '/there+')
      await visit('go.bob.example', '/bobs')
      await visit(s.host, '/default-missing')

      const alice = await notFound(s.token)
      assert.deepEqual(alice, [
        { domain: 'go.alice.example', path: '/flyer', clicks: 4, lastAt: alice[0]?.lastAt },
        { domain: 'go.alice.example', path: '/', clicks: 1, lastAt: alice[1]?.lastAt },
        { domain: 'go.alice.example', path: '/there+', clicks: 1, lastAt: alice[2]?.lastAt },
        { domain: 'go.alice.example', path: '/typo', clicks: 1, lastAt: alice[3]?.lastAt },
        { domain: 'links.alice.example', path: '/old', clicks: 1, lastAt: alice[4]?.lastAt },
      ])
      for (const row of alice) assert.ok(Math.abs(Date.parse(row.lastAt) - at) < 60_000, row.lastAt)
      assert.deepEqual(on(await notFound(bob), 'go.bob.example'), [{ path: '/bobs', clicks: 1 }])
      assert.equal((await notFound(bob)).length, 1, "bob sees neither alice's domains nor the default domain")
      // The bootstrap workspace has no custom domain here, and sees the default domain's.
      assert.deepEqual(await notFound(boot).then((rows) => rows.map(({ domain, path, clicks }) => ({ domain, path, clicks }))), [
        { domain: s.host, path: '/default-missing', clicks: 1 },
      ])
    })

    test('domain narrows to one domain; one the caller does not hold is 404', async () => {
      await visit('links.alice.example', '/narrow')
      const one = await notFound(s.token, '?domain=links.alice.example')
      assert.ok(one.length > 0)
      assert.ok(one.every((r) => r.domain === 'links.alice.example'))
      assert.ok(one.some((r) => r.path === '/narrow'))
      // Spelled in capitals, it is the same domain.
      assert.deepEqual(await notFound(s.token, '?domain=Links.Alice.Example'), one)
      for (const [domain, token] of [
        ['go.bob.example', s.token],
        ['go.alice.example', bob],
        [s.host, s.token],
        ['nowhere.example', s.token],
      ] as const) {
        const r = await s.request('GET', `/v1/stats/not-found?domain=${domain}`, { token })
        assert.equal(r.status, 404, domain)
        assert.equal(r.body.error.code, 'not_found')
        assert.equal(r.body.error.param, 'domain')
      }
      assert.deepEqual(await notFound(boot, `?domain=${s.host}`), await notFound(boot))
    })

    test('the top 50 by clicks, ties by domain and path', async () => {
      for (let i = 0; i < 52; i++) await visit('go.bob.example', `/many-${String(i).padStart(2, '0')}`)
      await visit('go.bob.example', '/many-51')
      const rows = await notFound(bob)
      assert.equal(rows.length, 50)
      assert.deepEqual(rows[0], { domain: 'go.bob.example', path: '/many-51', clicks: 2, lastAt: rows[0]?.lastAt })
      const rest = rows.slice(1).map((r) => r.path)
      assert.deepEqual(rest, [...rest].sort())
      assert.equal(rest[0], '/bobs')
    })

    test('a long path is cut to the longest a link may have; an encoded one is kept as sent', async () => {
      const long = `/${'a'.repeat(300)}`
      await visit('go.alice.example', long)
      await visit('go.alice.example', '/menu/caf%C3%A9%20x')
      const rows = on(await notFound(s.token, '?domain=go.alice.example'), 'go.alice.example')
      assert.ok(rows.some((r) => r.path === long.slice(0, 129)))
      assert.ok(rows.some((r) => r.path === '/menu/caf%C3%A9%20x'))
    })

    test('from and to select hours; the range is checked as the statistics check it', async () => {
      // Three visits now, two in three days (more than most paths of the top 50 before, which have one).
      for (let i = 0; i < 3; i++) await visit('go.bob.example', '/ranged')
      const first = clock.now()
      clock.advance(3 * DAY)
      await visit('go.bob.example', '/ranged')
      await visit('go.bob.example', '/ranged')
      const ranged = (rows: Row[]) => rows.find((r) => r.path === '/ranged')
      assert.equal(ranged(await notFound(bob))?.clicks, 5)
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
      assert.equal(ranged(await notFound(bob, `?to=${day(first)}`))?.clicks, 3)
      const recent = ranged(await notFound(bob, `?from=${day(clock.now())}`))
      assert.equal(recent?.clicks, 2)
      assert.ok(Math.abs(Date.parse(recent?.lastAt ?? '') - clock.now()) < 60_000)
      assert.equal(ranged(await notFound(bob, `?from=${new Date(first + HOUR).toISOString()}&to=${day(first + DAY)}`)), undefined)
      for (const [query, param] of [
        ['?from=yesterday', 'from'],
        ['?to=2026-13-01', 'to'],
        ['?from=2026-02-01&to=2026-01-01', 'from'],
        ['?interval=day', 'interval'],
      ]) {
        const r = await s.request('GET', `/v1/stats/not-found${query}`, { token: bob })
        assert.equal(r.status, 400, query)
        assert.equal(r.body.error.param, param, query)
      }
    })

    test('a token without links:read is refused, and none at all is 401', async () => {
      const domainsOnly = await s.createToken('alice', ['domains:read'])
      assert.equal((await s.request('GET', '/v1/stats/not-found', { token: domainsOnly })).status, 403)
      assert.equal((await s.request('GET', '/v1/stats/not-found', { token: null })).status, 401)
    })

    test("a domain claimed anew shows only what came after: the earlier owner's visits stay theirs", async () => {
      assert.equal((await s.request('POST', '/v1/domains', { json: { name: 'go.moving.example' } })).status, 201)
      await visit('go.moving.example', '/before')
      assert.ok((await notFound(s.token, '?domain=go.moving.example')).some((r) => r.path === '/before'))
      assert.equal((await s.request('DELETE', '/v1/domains/go.moving.example')).status, 200)
      clock.advance(2 * HOUR)
      assert.equal((await s.request('POST', '/v1/domains', { json: { name: 'go.moving.example' }, token: bob })).status, 201)
      await visit('go.moving.example', '/after')
      assert.deepEqual(
        (await notFound(bob, '?domain=go.moving.example')).map((r) => r.path),
        ['/after'],
      )
    })

    test('retention: hours older than LINKLINE_CLICK_RETENTION_DAYS are pruned', async () => {
      await visit('go.bob.example', '/kept')
      const before = (await notFound(bob, '?from=2000-01-01')).map((r) => r.path)
      assert.ok(before.includes('/bobs') && before.includes('/kept'))
      // 90 days on, less a few: the first test's visits (three days before /kept) are past the retention.
      clock.advance(89 * DAY)
      await s.container.missingPaths.service.prune()
      const after = (await notFound(bob, '?from=2000-01-01')).map((r) => r.path)
      assert.ok(!after.includes('/bobs'), after.join(' '))
      assert.ok(after.includes('/kept'))
    })
  })

  describe(`visits to missing paths at shutdown (${backend})`, () => {
    test('the last counts are written when the server stops', async () => {
      const database = await createTestDatabase(backend)
      try {
        const first = await startTestServer({ backend, database })
        const boot = await first.createToken('default')
        await first.request('GET', '/left-behind', { token: null, headers: { 'user-agent': CHROME } })
        await first.close()
        const second = await startTestServer({ backend, database, env: { LINKLINE_DOMAINS: first.host } })
        try {
          const rows = await second.request('GET', '/v1/stats/not-found', { token: boot })
          assert.deepEqual(
            rows.body.data.map((r: Row) => [r.domain, r.path, r.clicks]),
            [[first.host, '/left-behind', 1]],
          )
        } finally {
          await second.close()
        }
      } finally {
        await database.drop()
      }
    })
  })
}
