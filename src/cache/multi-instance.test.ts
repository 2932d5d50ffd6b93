import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { needsPostgres, needsPostgresAndRedis } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestDatabase, type TestServer } from '../../test/build-test-app.js'
import { freePort } from '../../test/free-port.js'
import { send, type RequestOptions, type Response } from '../../test/http-client.js'
import { startServerProcess } from '../../test/process.js'
import type { Env } from '../config.js'

const DOMAIN = 'sho.rt'
const TOKEN = 'multi-instance-bootstrap-token'
const RATE_LIMIT = 40

interface Instance {
  request(method: string, path: string, options?: RequestOptions): Promise<Response>
  stop(): Promise<void>
}

/** A real server process, used once it listens and its Redis connections are ready. */
async function startInstance(env: Env): Promise<Instance> {
  const server = await startServerProcess({ ...env, PORT: String(await freePort()) })
  const request = (method: string, path: string, options: RequestOptions = {}) =>
    send(server.url, method, path, { token: TOKEN, ...options, headers: { host: DOMAIN, ...options.headers } })
  for (let waited = 0; !/^linkline_redis_up 1$/m.test((await request('GET', '/metrics')).text); waited += 50) {
    if (waited > 10_000) throw new Error(`Redis not ready after 10 s:\n${server.output()}`)
    await sleep(50)
  }
  return {
    request,
    async stop() {
      server.child.kill('SIGTERM')
      await server.exited
    },
  }
}

describe('several instances on one PostgreSQL and Redis', { skip: needsPostgresAndRedis }, () => {
  let database: TestDatabase
  let a: Instance
  let b: Instance

  before(async () => {
    database = await createTestDatabase('postgres')
    const env = {
      ...database.env,
      LINKLINE_DOMAINS: DOMAIN,
      LINKLINE_DOMAIN_VERIFICATION: 'off',
      LINKLINE_BOOTSTRAP_TOKEN: TOKEN,
      LINKLINE_RATE_LIMIT: String(RATE_LIMIT),
    }
    // Started together: migrations and the bootstrap token must survive a simultaneous start.
    ;[a, b] = await Promise.all([startInstance(env), startInstance(env)])
  })
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await database?.drop()
  })

  const create = (instance: Instance, fields: Record<string, unknown>) => instance.request('POST', '/v1/links', { json: fields })
  const location = async (instance: Instance, path: string) => {
    const r = await instance.request('GET', path, { token: null })
    return r.status === 302 ? r.headers.location : r.status
  }

  test('a link created on A redirects on B', async () => {
    assert.equal((await create(a, { destination: 'https://a.example/one', path: '/one' })).status, 201)
    assert.equal(await location(b, '/one'), 'https://a.example/one')
  })

  test("an update on A is B's very next redirect, though B cached the old target", async () => {
    const link = (await create(a, { destination: 'https://a.example/old', path: '/moving' })).body.data
    assert.equal(await location(b, '/moving'), 'https://a.example/old')
    assert.equal(await location(b, '/moving'), 'https://a.example/old')
    assert.equal((await a.request('PUT', `/v1/links/${link.id}`, { json: { destination: 'https://a.example/new' } })).status, 200)
    assert.equal(await location(b, '/moving'), 'https://a.example/new')
    assert.equal((await a.request('PATCH', `/v1/links/${link.id}`, { json: { path: '/moved' } })).status, 200)
    assert.equal(await location(b, '/moving'), 404)
    assert.equal(await location(b, '/moved'), 'https://a.example/new')
  })

  test('a path B has seen as unknown redirects on B once A creates it', async () => {
    assert.equal(await location(b, '/later'), 404)
    assert.equal(await location(b, '/later'), 404)
    assert.equal((await create(a, { destination: 'https://a.example/later', path: '/later' })).status, 201)
    assert.equal(await location(b, '/later'), 'https://a.example/later')
  })

  test("a delete on A is a 404 on B's very next redirect", async () => {
    const link = (await create(a, { destination: 'https://a.example/gone', path: '/gone' })).body.data
    assert.equal(await location(b, '/gone'), 'https://a.example/gone')
    assert.equal((await a.request('DELETE', `/v1/links/${link.id}`)).status, 200)
    assert.equal(await location(b, '/gone'), 404)
  })

  test('B lists what A created', async () => {
    const r = await b.request('GET', '/v1/links?limit=100')
    assert.equal(r.status, 200)
    const paths = r.body.data.map((l: { path: string }) => l.path).sort()
    assert.deepEqual(paths, ['/later', '/moved', '/one'])
  })

  test("controls changed on A take effect on B's very next request", async () => {
    const link = (await create(a, { destination: 'https://a.example/ctl', path: '/ctl' })).body.data
    const visit = (headers: Record<string, string> = {}) => b.request('GET', '/ctl', { token: null, headers })
    const change = async (fields: Record<string, unknown>) => assert.equal((await a.request('PATCH', `/v1/links/${link.id}`, { json: fields })).status, 200)
    assert.equal(await location(b, '/ctl'), 'https://a.example/ctl')
    await change({ expiresAt: '2020-01-01T00:00:00Z' })
    assert.equal((await visit()).status, 410)
    await change({ expiresAt: null, password: 'multi-pass' })
    assert.equal((await visit()).status, 200)
    await change({ password: null, redirectType: 308, rules: [{ when: { language: ['de'] }, destination: 'https://a.example/de' }] })
    const ruled = await visit({ 'accept-language': 'de-DE' })
    assert.deepEqual([ruled.status, ruled.headers.location], [308, 'https://a.example/de'])
  })

  test("a social preview set or removed on A is what a crawler gets on B's very next request", async () => {
    const link = (await create(a, { destination: 'https://a.example/card', path: '/card' })).body.data
    const crawl = () => b.request('GET', '/card', { token: null, headers: { 'user-agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' } })
    const change = async (preview: unknown) => assert.equal((await a.request('PATCH', `/v1/links/${link.id}`, { json: { preview } })).status, 200)
    assert.equal((await crawl()).status, 302, 'cached on B without a preview')
    await change({ title: 'On B too' })
    const card = await crawl()
    assert.equal(card.status, 200)
    assert.match(card.text, /<meta property="og:title" content="On B too">/)
    await change(null)
    assert.equal((await crawl()).headers.location, 'https://a.example/card')
  })

  test("maxClicks across instances: each learns of the other's written visits", async () => {
    const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36' }
    const link = (await create(a, { destination: 'https://a.example/lim', path: '/lim', maxClicks: 4 })).body.data
    const visit = async (instance: Instance) => (await instance.request('GET', '/lim', { token: null, headers: browser })).status
    // Read from the database, not the API: this suite's token has a small rate limit (the last test spends it).
    const humanClicks = async () => {
      const client = new pg.Client({ connectionString: database.env.DATABASE_URL })
      await client.connect()
      try {
        const { rows } = await client.query('select coalesce(sum(human_clicks), 0) as n from link_click_rollups where link_id = $1', [link.id])
        return Number(rows[0].n)
      } finally {
        await client.end()
      }
    }
    const written = async (n: number) => {
      for (let waited = 0; (await humanClicks()) < n; waited += 100) {
        if (waited > 10_000) throw new Error(`${n} visits not written after 10 s`)
        await sleep(100)
      }
      // Past the age at which a cached click count is read again (CLICK_COUNT_REFRESH_MS).
      await sleep(300)
    }
    assert.deepEqual([await visit(a), await visit(a), await visit(b)], [302, 302, 302])
    await written(3)
    assert.deepEqual([await visit(b), await visit(b)], [302, 410])
    await written(4)
    assert.equal(await visit(a), 410)
  })

  test('a custom domain added on A is served by B', async () => {
    assert.equal((await a.request('POST', '/v1/domains', { json: { name: 'go.custom.test' } })).status, 201)
    const created = await create(a, { destination: 'https://a.example/custom', domain: 'go.custom.test', path: '/c' })
    assert.equal(created.status, 201)
    const r = await b.request('GET', '/c', { token: null, headers: { host: 'go.custom.test' } })
    assert.equal(r.headers.location, 'https://a.example/custom')
  })

  test('an Idempotency-Key used on A replays on B', async () => {
    const options = { json: { destination: 'https://a.example/once' }, headers: { 'idempotency-key': 'multi-1' } }
    const first = await a.request('POST', '/v1/links', options)
    const again = await b.request('POST', '/v1/links', options)
    assert.equal(first.status, 201)
    assert.equal(again.status, 201)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.equal(again.body.data.id, first.body.data.id)
  })

  // Last: it spends the token's budget for the rest of the minute.
  test('the rate limit is shared: requests split between A and B meet one counter', async () => {
    const remaining: number[] = []
    let limited: Response | undefined
    for (let i = 0; i <= RATE_LIMIT && !limited; i++) {
      const r = await (i % 2 === 0 ? a : b).request('GET', '/v1/links?limit=1')
      if (r.status === 429) limited = r
      else remaining.push(Number(r.headers['ratelimit-remaining']))
    }
    assert.ok(limited, 'no 429 within the limit')
    assert.equal(limited.body.error.code, 'rate_limited')
    assert.ok(Number(limited.headers['retry-after']) > 0)
    // One counter: every answer, from either instance, is one lower than the one before.
    assert.deepEqual(
      remaining,
      remaining.map((_, i) => (remaining[0] as number) - i),
    )
    assert.equal(remaining.at(-1), 0)
  })
})

describe('several instances on PostgreSQL without Redis', { skip: needsPostgres }, () => {
  let database: TestDatabase
  let a: TestServer
  let b: TestServer

  before(async () => {
    const shared = await createTestDatabase('postgres')
    database = { env: { DATABASE_URL: shared.env.DATABASE_URL, LINKLINE_DATA_DIR: shared.env.LINKLINE_DATA_DIR }, drop: shared.drop }
    const env = { LINKLINE_DOMAINS: DOMAIN }
    a = await startTestServer({ database, env })
    b = await startTestServer({ database, env })
  })
  after(async () => {
    await a?.close()
    await b?.close()
    await database?.drop()
  })

  test('nothing is cached, so an update on A is what B redirects to next', async () => {
    const headers = { host: DOMAIN }
    const location = async () => (await b.request('GET', '/nr', { token: null, headers })).headers.location
    const link = (await a.request('POST', '/v1/links', { json: { destination: 'https://a.example/1', path: '/nr' }, headers })).body.data
    assert.equal(await location(), 'https://a.example/1')
    assert.equal((await a.request('PUT', `/v1/links/${link.id}`, { json: { destination: 'https://a.example/2' }, headers })).status, 200)
    assert.equal(await location(), 'https://a.example/2')
  })
})
