import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../config.js'
import { redisKeys } from './keys.js'

test('every Redis key and channel starts with LINKLINE_REDIS_PREFIX (default linkline:)', () => {
  assert.deepEqual(redisKeys(loadConfig({}).redisPrefix), { rateLimit: 'linkline:rate-limit:', invalidations: 'linkline:invalidations' })
  const keys = redisKeys(loadConfig({ LINKLINE_REDIS_PREFIX: 'staging:' }).redisPrefix)
  assert.ok(Object.values(keys).every((key) => key.startsWith('staging:')))
})

test('REDIS_URL must be a redis:// or rediss:// URL', () => {
  assert.equal(loadConfig({ REDIS_URL: 'rediss://cache.internal:6380/2' }).redisUrl, 'rediss://cache.internal:6380/2')
  assert.throws(() => loadConfig({ REDIS_URL: 'cache.internal:6379' }), (e: unknown) => e instanceof ConfigError && /REDIS_URL must start/.test(e.message))
})
