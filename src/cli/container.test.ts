import assert from 'node:assert/strict'
import { createServer, type Socket } from 'node:net'
import { test } from 'node:test'
import { createTestDatabase } from '../../test/build-test-app.js'
import { freePort } from '../../test/free-port.js'
import { loadConfig } from '../config.js'
import { withContainer } from './command.js'

// Constructing the container has no side effect on Redis, and a CLI command only prepares it: with
// REDIS_URL set, `linkline tokens list` must not connect to Redis (it used to, at construction).
test('a CLI command with REDIS_URL set opens no Redis connection', async () => {
  const sockets: Socket[] = []
  const fakeRedis = createServer((socket) => sockets.push(socket))
  const port = await freePort()
  await new Promise<void>((resolve) => fakeRedis.listen(port, '127.0.0.1', resolve))
  const database = await createTestDatabase('sqlite')
  try {
    const config = loadConfig({ ...database.env, REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'silent' })
    const tokens = await withContainer(config, async (c) => {
      // ioredis's state: 'wait' is a client that has never tried to connect.
      assert.equal(c.redis?.status, 'wait', 'the Redis client has not connected')
      return c.tokens.list()
    })
    assert.deepEqual(tokens, [])
    assert.equal(sockets.length, 0, 'connections to Redis')
  } finally {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => fakeRedis.close(() => resolve()))
    await database.drop()
  }
})
