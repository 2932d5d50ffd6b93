import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { pino } from 'pino'
import { needsPostgresAndRedis } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestDatabase, type TestServer } from '../../test/build-test-app.js'
import { CHROME } from '../../test/factories.js'
import { startTcpProxy, type TcpProxy } from '../../test/tcp-proxy.js'

const DOMAIN = 'sho.rt'
/** Ends a wait that would otherwise hang the file: far longer than anything here takes on a loaded machine. */
const DEADLINE_MS = 30_000

async function beforeDeadline<T>(work: Promise<T>, failure: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${failure} (no answer within ${DEADLINE_MS} ms)`)), DEADLINE_MS)
  })
  try {
    return await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
  }
}

// `s` reaches Redis through a proxy the test can cut; `other` shares its database and Redis directly.
describe('Redis goes away and comes back', { skip: needsPostgresAndRedis }, () => {
  let database: TestDatabase
  let proxy: TcpProxy
  let s: TestServer
  let other: TestServer
  const logLines: string[] = []

  before(async () => {
    database = await createTestDatabase('postgres')
    proxy = await startTcpProxy(process.env.TEST_REDIS_URL as string, 6379)
    const env = { LINKLINE_DOMAINS: DOMAIN }
    const proxied = { ...database.env, REDIS_URL: proxy.url }
    const logger = pino({ level: 'warn' }, { write: (line: string) => void logLines.push(line) })
    s = await startTestServer({ database: { env: proxied, drop: async () => {} }, env, container: { logger } })
    other = await startTestServer({ database, env })
  })
  after(async () => {
    await s?.close()
    await other?.close()
    await proxy?.close()
    await database?.drop()
  })

  const metric = async (name: string) => {
    const text = (await s.request('GET', '/metrics')).text
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
  }
  const waitForRedisUp = async (value: number) => {
    for (let waited = 0; (await metric('linkline_redis_up')) !== value; waited += 50) {
      assert.ok(waited < 10_000, `linkline_redis_up never became ${value}`)
      await sleep(50)
    }
  }
  const location = async (path: string, server = s) => (await server.request('GET', path, { token: null, headers: { host: DOMAIN } })).headers.location
  const cached = (path: string) => s.container.redirectCache.get(DOMAIN, path)
  const create = async (path: string, destination: string) =>
    (await s.request('POST', '/v1/links', { json: { destination, path }, headers: { host: DOMAIN } })).body.data

  test('redirects and the API keep working from the database, and recover by themselves', async () => {
    await waitForRedisUp(1)
    const link = await create('/r', 'https://a.example/1')
    assert.equal(await location('/r'), 'https://a.example/1')
    assert.ok(cached('/r'), 'cached while Redis is up')
    assert.ok((await s.request('GET', '/v1/links')).headers['ratelimit-remaining'] !== undefined)

    await proxy.cut()
    await waitForRedisUp(0)
    assert.equal(await location('/r'), 'https://a.example/1')
    assert.equal((await s.request('GET', '/v1/links')).status, 200)
    // The write is answered while Redis is still unreachable (the proxy is restored only below): a write
    // that waited for Redis would never be answered here, and the deadline (not a timing bound) says so.
    const updated = await beforeDeadline(s.request('PUT', `/v1/links/${link.id}`, { json: { destination: 'https://a.example/2' } }), 'a write waited for Redis')
    assert.equal(updated.status, 200)
    assert.equal(await location('/r'), 'https://a.example/2')
    assert.equal(cached('/r'), undefined, 'no cache while invalidations could be missed')
    for (const n of [3, 4]) assert.equal((await s.request('PUT', `/v1/links/${link.id}`, { json: { destination: `https://a.example/${n}` } })).status, 200)
    assert.equal(logLines.filter((l) => l.includes('could not publish an invalidation')).length, 1, 'the outage is logged once, not per write')
    assert.equal((await s.request('PUT', `/v1/links/${link.id}`, { json: { destination: 'https://a.example/2' } })).status, 200)
    assert.ok((await metric('linkline_redis_errors_total')) > 0)

    await proxy.restore()
    await waitForRedisUp(1)
    for (let waited = 0; cached('/r') === undefined; waited += 50) {
      assert.ok(waited < 5000, 'the cache never resumed')
      assert.equal(await location('/r'), 'https://a.example/2')
      await sleep(50)
    }
    assert.ok((await s.request('GET', '/v1/links')).headers['ratelimit-remaining'] !== undefined)
  })

  test('writes made while cut off from Redis reach the other instances once it is back', async () => {
    await waitForRedisUp(1)
    const link = await create('/o', 'https://a.example/old')
    // The reset that `s` owes after the first test's outage may still reach `other` and empty its
    // cache: visit until the target is cached there.
    for (let waited = 0; !other.container.redirectCache.get(DOMAIN, '/o'); waited += 50) {
      assert.ok(waited < 5000, 'never cached on the other instance')
      assert.equal(await location('/o', other), 'https://a.example/old')
      await sleep(50)
    }

    await proxy.cut()
    await waitForRedisUp(0)
    const updated = await s.request('PUT', `/v1/links/${link.id}`, { json: { destination: 'https://a.example/new' }, headers: { host: DOMAIN } })
    assert.equal(updated.status, 200)

    await proxy.restore()
    for (let waited = 0; (await location('/o', other)) !== 'https://a.example/new'; waited += 50) {
      assert.ok(waited < 10_000, 'the other instance kept the old target')
      await sleep(50)
    }
  })
  test('a limited link is counted by the instance itself while Redis is away', async () => {
    await waitForRedisUp(1)
    const created = await s.request('POST', '/v1/links', {
      json: { destination: 'https://a.example/lim', path: '/lim', maxClicks: 3 },
      headers: { host: DOMAIN },
    })
    assert.equal(created.status, 201)
    const visit = async () => (await s.request('GET', '/lim', { token: null, headers: { host: DOMAIN, 'user-agent': CHROME } })).status
    assert.equal(await visit(), 302)
    await proxy.cut()
    await waitForRedisUp(0)
    // Answered, never held: the shared count is not asked while Redis is down, and the instance's own is exact.
    assert.deepEqual([await visit(), await visit(), await visit()], [302, 302, 410])
    await proxy.restore()
    await waitForRedisUp(1)
    assert.equal(await visit(), 410)
  })
})
