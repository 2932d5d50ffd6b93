import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { needsPostgres } from '../../test/backends.js'
import { createTestDatabase } from '../../test/build-test-app.js'
import { freePort } from '../../test/free-port.js'
import { send } from '../../test/http-client.js'
import { startServerProcess, type ServerProcess } from '../../test/process.js'
import { startReceiver } from '../../test/webhook-receiver.js'

const TOKEN = 'webhooks-outbox-test-token-0123456789'

async function stop(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM') {
  server.child.kill(signal)
  await server.exited
}

describe('the outbox survives kill -9', () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-outbox-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  test('a link.created acknowledged with 201 just before kill -9 is delivered after the restart', { timeout: 120_000 }, async () => {
    // The receiver's port is closed while the first server runs: nothing can be delivered before the kill.
    const receiverPort = await freePort()
    const port = await freePort()
    const env = {
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(dir, 'linkline.db')}`,
      LINKLINE_BOOTSTRAP_TOKEN: TOKEN,
      LINKLINE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      LINKLINE_WEBHOOKS_POLL_INTERVAL_MS: '50',
      // An attempt the kill cuts off is due again when its lease ends: 2 min by default, a second here.
      LINKLINE_WEBHOOKS_LEASE_MS: '1000',
    }
    const headers = { host: `localhost:${port}` }
    let server = await startServerProcess(env)
    const hook = await send(server.url, 'POST', '/v1/webhooks', {
      token: TOKEN,
      headers,
      json: { url: `http://127.0.0.1:${receiverPort}/hook`, events: ['link.created'] },
    })
    assert.equal(hook.status, 201, hook.text)
    const created = await send(server.url, 'POST', '/v1/links', { token: TOKEN, headers, json: { destination: 'https://dest.example/killed' } })
    assert.equal(created.status, 201)
    server.child.kill('SIGKILL')
    await server.exited

    const receiver = await startReceiver({ port: receiverPort })
    server = await startServerProcess(env)
    try {
      // Due at once, or after the 5 s retry of an attempt that met the closed port, or after the lease of
      // an attempt the kill interrupted (1 s): the event is not lost in any case.
      const [got] = await receiver.waitFor((all) => all.length > 0, 60_000)
      assert.equal(got?.json.type, 'link.created')
      assert.equal(got?.json.data.id, created.body.data.id)
    } finally {
      await stop(server)
      await receiver.close()
    }
  })
})

describe('two server processes on one PostgreSQL database', { skip: needsPostgres }, () => {
  test('claim due deliveries with SKIP LOCKED: every event is delivered, and no attempt is made twice', { timeout: 120_000 }, async () => {
    const database = await createTestDatabase('postgres')
    const receiver = await startReceiver({ delayMs: 20 })
    const servers: ServerProcess[] = []
    try {
      for (let i = 0; i < 2; i++) {
        const port = await freePort()
        servers.push(
          await startServerProcess({
            ...database.env,
            PORT: String(port),
            LINKLINE_DOMAINS: 'sho.rt',
            LINKLINE_BOOTSTRAP_TOKEN: TOKEN,
            LINKLINE_WEBHOOKS_ALLOW_PRIVATE: 'true',
            LINKLINE_WEBHOOKS_POLL_INTERVAL_MS: '10',
          }),
        )
      }
      const [a, b] = servers as [ServerProcess, ServerProcess]
      for (const path of ['/one', '/two']) {
        const hook = await send(a.url, 'POST', '/v1/webhooks', { token: TOKEN, json: { url: receiver.url(path), events: ['link.created'] } })
        assert.equal(hook.status, 201, hook.text)
      }
      const count = 60
      await Promise.all(
        Array.from({ length: count }, (_, i) =>
          send((i % 2 === 0 ? a : b).url, 'POST', '/v1/links', { token: TOKEN, json: { destination: `https://dest.example/${i}` } }).then((r) =>
            assert.equal(r.status, 201, r.text),
          ),
        ),
      )
      await receiver.waitFor((all) => all.length >= 2 * count, 60_000)
      // Late duplicates would come within a round or two of polling.
      await sleep(500)
      const seen = receiver.received.map((r) => `${r.path} ${r.headers['webhook-id'] as string}`)
      assert.equal(seen.length, 2 * count)
      assert.equal(new Set(seen).size, 2 * count)
      const hooks = (await send(a.url, 'GET', '/v1/webhooks', { token: TOKEN })).body.data as { id: string }[]
      for (const { id } of hooks) {
        const log = (await send(b.url, 'GET', `/v1/webhooks/${id}/deliveries?limit=100`, { token: TOKEN })).body.data as { attempts: number; status: string }[]
        assert.equal(log.length, count)
        assert.ok(
          log.every((d) => d.attempts === 1 && d.status === 'delivered'),
          JSON.stringify(log.filter((d) => d.attempts !== 1)),
        )
      }
    } finally {
      for (const server of servers) await stop(server)
      await receiver.close()
      await database.drop()
    }
  })
})
