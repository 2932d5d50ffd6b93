import assert from 'node:assert/strict'
import { once } from 'node:events'
import { after, before, describe, test } from 'node:test'
import { needsPostgresAndRedis } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestDatabase, type TestServer } from '../../test/build-test-app.js'
import { CHROME } from '../../test/factories.js'

const DOMAIN = 'sho.rt'
const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

describe('maxClicks on two instances sharing PostgreSQL and Redis', { skip: needsPostgresAndRedis }, () => {
  let database: TestDatabase
  let a: TestServer
  let b: TestServer
  before(async () => {
    database = await createTestDatabase('postgres')
    // Visits are written a minute later only: neither instance can learn of the other's from the
    // database during the test, so only the shared count can hold the limit.
    const env = { LINKLINE_DOMAINS: DOMAIN, LINKLINE_CLICK_FLUSH_INTERVAL_MS: '60000' }
    ;[a, b] = await Promise.all([startTestServer({ database, env }), startTestServer({ database, env })])
    for (const s of [a, b]) {
      const redis = s.container.redis
      assert.ok(redis)
      if (redis.status !== 'ready') await once(redis, 'ready', { signal: AbortSignal.timeout(10_000) })
    }
  })
  after(async () => {
    await Promise.all([a?.close(), b?.close()])
    await database?.drop()
  })

  const visit = (s: TestServer, path: string, userAgent = CHROME) => s.request('GET', path, { token: null, headers: { host: DOMAIN, 'user-agent': userAgent } })

  test('a burst split between the instances lets exactly maxClicks human visits through', async () => {
    const link = (
      await a.request('POST', '/v1/links', { json: { destination: 'https://a.example/burst', path: '/burst', maxClicks: 10 }, headers: { host: DOMAIN } })
    ).body.data
    // Both hold the target with a count of 0 before the burst.
    for (const s of [a, b]) assert.equal((await visit(s, '/burst', BOT)).status, 200)
    const burst = await Promise.all(Array.from({ length: 60 }, (_, i) => visit(i % 2 === 0 ? a : b, '/burst')))
    const statuses = burst.map((r) => r.status)
    assert.equal(statuses.filter((s) => s === 302).length, 10, statuses.join(' '))
    assert.equal(statuses.filter((s) => s === 410).length, 50, statuses.join(' '))
    // Spent for everyone, on both instances: bots included.
    for (const s of [a, b]) for (const ua of [CHROME, BOT]) assert.equal((await visit(s, '/burst', ua)).status, 410)
    // One count, under the configured prefix, that expires once left alone.
    const key = `${a.env.LINKLINE_REDIS_PREFIX}click-limit:${link.id}`
    const redis = a.container.redis
    assert.ok(redis)
    assert.equal(await redis.get(key), '10')
    assert.ok((await redis.ttl(key)) > 0)
    await Promise.all([a.container.clicks.flush(), b.container.clicks.flush()])
    assert.equal((await a.request('GET', `/v1/links/${link.id}/stats`)).body.data.humanClicks, 10)
  })
})
