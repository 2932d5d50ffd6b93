import assert from 'node:assert/strict'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { backends, needsPostgres } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestServer } from '../../test/build-test-app.js'
import { freePort } from '../../test/free-port.js'
import { startReceiver } from '../../test/webhook-receiver.js'
import { createOutboundFetch } from '../outbound/outbound.js'
import { isPublicAddress } from '../shared/outbound-address.js'
import { checkDestination } from './health.check.js'

/**
 * Destinations on a loopback address: `/status/<n>` answers n to HEAD and GET, `/head405` refuses HEAD,
 * `/flip` answers what the test set, `/hang` never answers, `/loop` redirects to itself, `/to/<url>`
 * redirects there. Every request is recorded (method and path).
 */
async function startDestinations(address = '127.0.0.1') {
  const asked: { method: string; path: string }[] = []
  const hanging = new Set<ServerResponse>()
  let flip = 200
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/'
    asked.push({ method: req.method ?? '', path })
    if (path === '/hang') return void hanging.add(res)
    if (path === '/loop') return res.writeHead(302, { location: '/loop' }).end()
    if (path.startsWith('/to/')) return res.writeHead(302, { location: decodeURIComponent(path.slice(4)) }).end()
    if (path === '/head405') return res.writeHead(req.method === 'HEAD' ? 405 : 200).end()
    if (path === '/flip') return res.writeHead(flip).end()
    const status = /^\/status\/(\d{3})$/.exec(path)
    res.writeHead(status ? Number(status[1]) : 200).end('fine')
  })
  await new Promise<void>((resolve) => server.listen(0, address, resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: (path: string) => `http://${address}:${port}${path}`,
    asked,
    set flip(status: number) {
      flip = status
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
type Destinations = Awaited<ReturnType<typeof startDestinations>>

const BASE_ENV = { LINKLINE_FETCH_ALLOW_PRIVATE: 'true', LINKLINE_PAGE_TITLES: 'off' }

for (const backend of backends) {
  describe(`destination health (${backend})`, () => {
    let s: TestServer
    let d: Destinations
    before(async () => {
      d = await startDestinations()
      // Background checks off: every check here is the API's, one at a time.
      s = await startTestServer({ backend, env: { ...BASE_ENV, LINKLINE_HEALTH_INTERVAL_HOURS: '0' }, container: { health: { timeoutMs: 300 } } })
    })
    after(async () => {
      await s.close()
      await d.close()
    })

    const create = async (destination: string) => {
      const r = await s.request('POST', '/v1/links', { json: { destination, title: 'x' } })
      assert.equal(r.status, 201, r.text)
      return r.body.data as { id: string; health: { status: string; httpStatus: number | null; checkedAt: string | null; error: string | null } }
    }
    const check = async (id: string) => {
      const r = await s.request('POST', `/v1/links/${id}/check`)
      assert.equal(r.status, 200, r.text)
      return r.body.data.health as { status: string; httpStatus: number | null; checkedAt: string | null; error: string | null }
    }

    test('a new link is unknown; one success makes it ok; a new destination is unknown again', async () => {
      const link = await create(d.url('/status/200'))
      assert.deepEqual(link.health, { status: 'unknown', httpStatus: null, checkedAt: null, error: null })
      const health = await check(link.id)
      assert.equal(health.status, 'ok')
      assert.equal(health.httpStatus, 200)
      assert.equal(health.error, null)
      assert.ok(health.checkedAt !== null && Number.isFinite(Date.parse(health.checkedAt)))
      assert.deepEqual((await s.request('GET', `/v1/links/${link.id}`)).body.data.health, health)
      assert.deepEqual(
        d.asked.filter((a) => a.path === '/status/200'),
        [{ method: 'HEAD', path: '/status/200' }],
      )
      const moved = await s.request('PATCH', `/v1/links/${link.id}`, { json: { destination: d.url('/status/204') } })
      assert.deepEqual(moved.body.data.health, { status: 'unknown', httpStatus: null, checkedAt: null, error: null })
    })

    test('ok stays ok after one failure, turns broken after two, ok again after one success; link.broken once per turn', async () => {
      const receiver = await startReceiver()
      try {
        const hook = await s.request('POST', '/v1/webhooks', { json: { url: receiver.url('/hook'), events: ['link.broken'] } })
        assert.equal(hook.status, 201, hook.text)
        d.flip = 200
        const link = await create(d.url('/flip'))
        assert.equal((await check(link.id)).status, 'ok')
        d.flip = 500
        const once = await check(link.id)
        assert.deepEqual([once.status, once.httpStatus, once.error], ['ok', 500, 'http_status'])
        assert.equal((await check(link.id)).status, 'broken')
        assert.equal((await check(link.id)).status, 'broken')
        const [event] = await receiver.waitFor((all) => all.length >= 1)
        assert.equal(event?.json.type, 'link.broken')
        assert.equal(event?.json.data.id, link.id)
        assert.equal(event?.json.data.health.status, 'broken')
        assert.equal(event?.json.data.health.httpStatus, 500)
        d.flip = 200
        assert.equal((await check(link.id)).status, 'ok')
        const deliveries = await s.request('GET', `/v1/webhooks/${hook.body.data.id}/deliveries`)
        assert.equal(deliveries.body.data.filter((x: { eventType: string }) => x.eventType === 'link.broken').length, 1)
        await s.request('DELETE', `/v1/webhooks/${hook.body.data.id}`)
      } finally {
        await receiver.close()
      }
    })

    test('an unknown link that fails twice is broken; the first failure leaves it unknown', async () => {
      const link = await create(d.url('/status/404'))
      const first = await check(link.id)
      assert.deepEqual([first.status, first.httpStatus, first.error], ['unknown', 404, 'http_status'])
      assert.equal((await check(link.id)).status, 'broken')
    })

    test('HEAD refused: the GET decides', async () => {
      const link = await create(d.url('/head405'))
      const health = await check(link.id)
      assert.deepEqual([health.status, health.httpStatus], ['ok', 200])
      assert.deepEqual(
        d.asked.filter((a) => a.path === '/head405').map((a) => a.method),
        ['HEAD', 'GET'],
      )
    })

    test('401, 403 and 429 are not failures; 5xx are', async () => {
      for (const status of [401, 403, 429]) {
        const link = await create(d.url(`/status/${status}`))
        await check(link.id)
        const health = await check(link.id)
        assert.deepEqual([health.status, health.httpStatus, health.error], ['ok', status, null])
      }
      const link = await create(d.url('/status/503'))
      await check(link.id)
      const health = await check(link.id)
      assert.deepEqual([health.status, health.httpStatus, health.error], ['broken', 503, 'http_status'])
    })

    test('a timeout, a refused connection, a redirect loop, DNS and TLS failures are failures, without a status', async () => {
      const closed = `http://127.0.0.1:${await freePort()}/`
      for (const [destination, error] of [
        [d.url('/hang'), 'timeout'],
        [closed, 'connection'],
        [d.url('/loop'), 'too_many_redirects'],
        // Test servers resolve loopback names only (build-test-app.ts loopbackResolve): any other name fails as DNS does.
        ['http://nowhere.invalid/', 'dns'],
        // https spoken to a plain http server.
        [d.url('/status/200').replace('http:', 'https:'), 'tls'],
      ] as const) {
        const link = await create(destination)
        await check(link.id)
        const health = await check(link.id)
        assert.deepEqual([health.status, health.httpStatus, health.error], ['broken', null, error], destination)
      }
    })

    test('query[health] filters the list; a bad value is a 400 naming it', async () => {
      const broken = (await s.request('GET', '/v1/links?query[health]=broken&limit=100')).body.data as { health: { status: string } }[]
      assert.ok(broken.length >= 5)
      assert.ok(broken.every((l) => l.health.status === 'broken'))
      const ok = (await s.request('GET', '/v1/links?query[health]=ok&limit=100')).body.data as { health: { status: string } }[]
      assert.ok(ok.length >= 1 && ok.every((l) => l.health.status === 'ok'))
      const unknown = (await s.request('GET', '/v1/links?query[health]=unknown&limit=100')).body.data as { health: { status: string } }[]
      assert.ok(unknown.length >= 1 && unknown.every((l) => l.health.status === 'unknown'))
      const bad = await s.request('GET', '/v1/links?query[health]=sick')
      assert.equal(bad.status, 400)
      assert.equal(bad.body.error.code, 'validation_error')
      assert.equal(bad.body.error.param, 'query[health]')
    })

    test('linkline_links_broken counts the broken links', async () => {
      const count = (await s.request('GET', '/v1/links?query[health]=broken&limit=100')).body.data.length
      const metrics = await s.request('GET', '/metrics', { token: null })
      assert.match(metrics.text, new RegExp(`^linkline_links_broken ${count}$`, 'm'))
    })

    test("check: another workspace's link and an unknown id are 404; without links:write 403", async () => {
      const link = await create(d.url('/status/200'))
      const bob = await s.createToken('bob')
      const other = await s.request('POST', `/v1/links/${link.id}/check`, { token: bob })
      assert.equal(other.status, 404)
      assert.equal(other.body.error.code, 'not_found')
      const unknown = await s.request('POST', '/v1/links/lnk_nope/check')
      assert.equal(unknown.status, 404)
      const reader = await s.createToken('alice', ['links:read'])
      const denied = await s.request('POST', `/v1/links/${link.id}/check`, { token: reader })
      assert.equal(denied.status, 403)
      assert.equal((await s.request('GET', `/v1/links/${link.id}`)).body.data.health.status, 'unknown')
    })
  })

  describe(`the background checker (${backend})`, () => {
    test('checks due links in the background; interval 0 never checks', async () => {
      const d = await startDestinations()
      // Polls hourly: each sweep here is asked for, after the one at start.
      const on = await startTestServer({
        backend,
        env: { ...BASE_ENV, LINKLINE_HEALTH_INTERVAL_HOURS: '24' },
        container: { health: { pollMs: 3_600_000, hostIntervalMs: 0 } },
      })
      const off = await startTestServer({ backend, env: { ...BASE_ENV, LINKLINE_HEALTH_INTERVAL_HOURS: '0' } })
      try {
        const ids = []
        for (const path of ['/status/200', '/status/500', '/head405']) {
          ids.push((await on.request('POST', '/v1/links', { json: { destination: d.url(path), title: 'x' } })).body.data.id as string)
        }
        const swept = await on.container.health.sweep()
        assert.equal(swept.held, true)
        const statuses = []
        for (const id of ids) statuses.push((await on.request('GET', `/v1/links/${id}`)).body.data.health)
        assert.deepEqual(
          statuses.map((h) => [h.status, h.httpStatus]),
          [
            ['ok', 200],
            ['unknown', 500],
            ['ok', 200],
          ],
        )
        // Checked an interval ago at most: nothing is due, nothing is asked again.
        const asked = d.asked.length
        assert.deepEqual(await on.container.health.sweep(), { held: true, checked: 0 })
        assert.equal(d.asked.length, asked)

        const quiet = (await off.request('POST', '/v1/links', { json: { destination: d.url('/status/200?off'), title: 'x' } })).body.data.id
        assert.deepEqual(await off.container.health.sweep(), { held: false, checked: 0 })
        assert.equal((await off.request('GET', `/v1/links/${quiet}`)).body.data.health.status, 'unknown')
        assert.equal(d.asked.filter((a) => a.path === '/status/200?off').length, 0)
      } finally {
        await on.close()
        await off.close()
        await d.close()
      }
    })

    test('the checker thread runs for a sweep only: started when a link is due, gone once it is checked', async () => {
      const d = await startDestinations()
      const s = await startTestServer({
        backend,
        env: { ...BASE_ENV, LINKLINE_HEALTH_INTERVAL_HOURS: '24' },
        container: { health: { pollMs: 50, hostIntervalMs: 0, timeoutMs: 300 } },
      })
      const threads = () => s.container.health.threads()
      const until = async (what: string, done: () => boolean) => {
        const deadline = Date.now() + 10_000
        while (!done()) {
          assert.ok(Date.now() < deadline, `waited for ${what}`)
          await sleep(10)
        }
      }
      try {
        // Polls with nothing due start no thread.
        await sleep(300)
        assert.equal(threads(), 0)
        const id = (await s.request('POST', '/v1/links', { json: { destination: d.url('/hang'), title: 'x' } })).body.data.id as string
        // The next poll finds it due: a thread checks it (the destination never answers: a timeout).
        await until('the sweep thread', () => threads() === 1 && d.asked.some((a) => a.path === '/hang'))
        await until('the thread to end', () => threads() === 0)
        const health = (await s.request('GET', `/v1/links/${id}`)).body.data.health
        assert.notEqual(health.checkedAt, null)
        assert.equal(health.error, 'timeout')
        // Checked now, so no longer due: the polls that follow start no thread.
        const asked = d.asked.length
        await sleep(300)
        assert.equal(threads(), 0)
        assert.equal(d.asked.length, asked)
      } finally {
        await s.close()
        await d.close()
      }
    })
  })
}

describe('the background checker on several instances (postgres)', { skip: needsPostgres }, () => {
  test('one instance at a time holds the lease and checks; another takes over when it stops', async () => {
    const d = await startDestinations()
    const database = await createTestDatabase('postgres')
    const options = { env: { ...BASE_ENV, LINKLINE_HEALTH_INTERVAL_HOURS: '24' }, database, container: { health: { pollMs: 3_600_000, hostIntervalMs: 0 } } }
    const a = await startTestServer(options)
    const b = await startTestServer(options)
    try {
      const ids = []
      for (let i = 0; i < 5; i++)
        ids.push((await a.request('POST', '/v1/links', { json: { destination: d.url(`/status/200?n=${i}`), title: 'x' } })).body.data.id)
      const [first, second] = await Promise.all([a.container.health.sweep(), b.container.health.sweep()])
      assert.equal([first, second].filter((r) => r.held).length, 1, JSON.stringify([first, second]))
      for (let i = 0; i < 5; i++) assert.equal(d.asked.filter((x) => x.path === `/status/200?n=${i}`).length, 1)
      const [holder, other] = first.held ? [a, b] : [b, a]
      await holder.close()
      assert.deepEqual(await other.container.health.sweep(), { held: true, checked: 0 })
    } finally {
      await a.close()
      await b.close()
      await database.drop()
      await d.close()
    }
  })
})

describe('the background checker on several instances, polling (postgres)', { skip: needsPostgres }, () => {
  test('while one instance sweeps with the lease, the others start no thread at their polls', async () => {
    const d = await startDestinations()
    const database = await createTestDatabase('postgres')
    const options = {
      env: { ...BASE_ENV, LINKLINE_HEALTH_INTERVAL_HOURS: '24' },
      database,
      container: { health: { pollMs: 20, hostIntervalMs: 0, timeoutMs: 3000 } },
    }
    const a = await startTestServer(options)
    const b = await startTestServer(options)
    try {
      // A destination that never answers keeps the sweep (and its lease) going for 3 s.
      await a.request('POST', '/v1/links', { json: { destination: d.url('/hang'), title: 'x' } })
      const deadline = Date.now() + 10_000
      while (!d.asked.some((x) => x.path === '/hang')) {
        assert.ok(Date.now() < deadline, 'a sweep began')
        await sleep(10)
      }
      // Both may have started a thread at the same poll; the one without the lease has ended it by now.
      await sleep(500)
      const sweeping = [a, b].filter((s) => s.container.health.threads() === 1)
      assert.equal(sweeping.length, 1, 'one instance sweeps')
      const other = sweeping[0] === a ? b : a
      for (const started = Date.now(); Date.now() - started < 1000; await sleep(5)) assert.equal(other.container.health.threads(), 0)
    } finally {
      await a.close()
      await b.close()
      await database.drop()
      await d.close()
    }
  })
})

describe('a check through the guarded client', () => {
  test('a redirect to a private address fails as private_address', async () => {
    // 127.0.0.2 stands in for a public server; every other address keeps the rule.
    const publicSite = await startDestinations('127.0.0.2')
    const privateSite = await startDestinations('127.0.0.1')
    try {
      const outbound = createOutboundFetch({ allowPrivate: false, isPublic: (a) => a === '127.0.0.2' || isPublicAddress(a) })
      assert.deepEqual(await checkDestination(outbound, publicSite.url('/status/200')), { ok: true, httpStatus: 200, error: null })
      const redirect = publicSite.url(`/to/${encodeURIComponent(privateSite.url('/status/200'))}`)
      assert.deepEqual(await checkDestination(outbound, redirect), { ok: false, httpStatus: null, error: 'private_address' })
      assert.equal(privateSite.asked.length, 0)
    } finally {
      await publicSite.close()
      await privateSite.close()
    }
  })
})
