import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../config.js'
import { needsPostgresAndRedis } from '../../test/backends.js'
import { startTestServer } from '../../test/build-test-app.js'
import { redisKeys } from './keys.js'

test('every Redis key and channel starts with LINKLINE_REDIS_PREFIX (default linkline:)', () => {
  assert.deepEqual(redisKeys(loadConfig({}).redisPrefix), {
    rateLimit: 'linkline:rate-limit:',
    clickLimit: 'linkline:click-limit:',
    invalidations: 'linkline:invalidations',
  })
  const keys = redisKeys(loadConfig({ LINKLINE_REDIS_PREFIX: 'staging:' }).redisPrefix)
  assert.ok(Object.values(keys).every((key) => key.startsWith('staging:')))
})

test('REDIS_URL must be a redis:// or rediss:// URL', () => {
  assert.equal(loadConfig({ REDIS_URL: 'rediss://cache.internal:6380/2' }).redisUrl, 'rediss://cache.internal:6380/2')
  assert.throws(
    () => loadConfig({ REDIS_URL: 'cache.internal:6379' }),
    (e: unknown) => e instanceof ConfigError && /REDIS_URL must start/.test(e.message),
  )
})

// The rate limiter must use the configured namespace: without this test, a plugin ignoring `nameSpace`
// (its default is `fastify-rate-limit-`) would leave the test above passing.
test('the rate-limit counters live under LINKLINE_REDIS_PREFIX in Redis', { skip: needsPostgresAndRedis }, async () => {
  const s = await startTestServer({ backend: 'postgres' })
  try {
    const prefix = s.env.LINKLINE_REDIS_PREFIX as string
    assert.ok(prefix.startsWith('linkline-test:'))
    const redis = s.container.redis
    assert.ok(redis, 'the server talks to Redis')
    // A start does not wait for Redis (rate limits pass while it is down). On a loaded CI machine the
    // connection was once still not ready here, and the counter is what this test is about.
    if (redis.status !== 'ready') await once(redis, 'ready', { signal: AbortSignal.timeout(10_000) })
    assert.equal((await s.request('GET', '/v1/links')).status, 200)
    const counters = await redis.keys(`${prefix}rate-limit:*`)
    assert.equal(counters.length, 1, `one counter for the one token under ${prefix}rate-limit:`)
    const tokenId = (await s.container.tokens.list()).find((t) => t.ownerId === 'alice')?.id
    assert.ok(tokenId && counters[0]?.includes(tokenId), counters.join(' '))
  } finally {
    await s.close()
  }
})
