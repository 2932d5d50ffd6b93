import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { needsPostgresAndRedis } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { startTcpProxy, type TcpProxy } from '../../test/tcp-proxy.js'


describe('Redis goes away and comes back', { skip: needsPostgresAndRedis }, () => {
  let proxy: TcpProxy
  let s: TestServer

  before(async () => {
    const redis = new URL(process.env.TEST_REDIS_URL as string)
    proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) })
    s = await startTestServer({ backend: 'postgres', env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } })
  })
  after(async () => {
    await s?.close()
    await proxy?.close()
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
  const location = async (path: string) => (await s.request('GET', path, { token: null })).headers.location
  const cached = (path: string) => s.container.redirectCache.get(s.host, path)

  test('redirects and the API keep working from the database, and recover by themselves', async () => {
    await waitForRedisUp(1)
    const link = (await s.request('POST', '/v1/links', { json: { destination: 'https://a.example/1', path: '/r' } })).body.data
    assert.equal(await location('/r'), 'https://a.example/1')
    assert.ok(cached('/r'), 'cached while Redis is up')
    assert.ok((await s.request('GET', '/v1/links')).headers['ratelimit-remaining'] !== undefined)

    await proxy.cut()
    await waitForRedisUp(0)
    assert.equal(await location('/r'), 'https://a.example/1')
    assert.equal((await s.request('GET', '/v1/links')).status, 200)
    const started = Date.now()
    const updated = await s.request('PUT', `/v1/links/${link.id}`, { json: { destination: 'https://a.example/2' } })
    assert.equal(updated.status, 200)
    assert.ok(Date.now() - started < 1000, 'a write waited for Redis')
    assert.equal(await location('/r'), 'https://a.example/2')
    assert.equal(cached('/r'), undefined, 'no cache while invalidations could be missed')
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
})
