import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { pino } from 'pino'
import { needsPostgres } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestDatabase, type TestServer } from '../../test/build-test-app.js'
import { freePort } from '../../test/free-port.js'
import { send } from '../../test/http-client.js'
import { MAIN, tracked } from '../../test/process.js'
import { startTcpProxy, type TcpProxy } from '../../test/tcp-proxy.js'

describe('PostgreSQL goes away and comes back', { skip: needsPostgres }, () => {
  let database: TestDatabase
  let proxy: TcpProxy
  let s: TestServer

  before(async () => {
    database = await createTestDatabase('postgres')
    proxy = await startTcpProxy(database.env.DATABASE_URL as string, 5432)
    s = await startTestServer({
      database: { env: { ...database.env, DATABASE_URL: proxy.url }, drop: async () => {} },
      // Short, so that the black-holed case below reaches the client-side query timeout quickly.
      env: { DATABASE_STATEMENT_TIMEOUT_MS: '1000' },
    })
  })
  after(async () => {
    await s?.close()
    await proxy?.close()
    await database?.drop()
  })

  test('requests get 503 service_unavailable without SQL, then succeed once the database is back', async () => {
    assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', path: '/before' } })).status, 201)
    await proxy.cut()

    for (const r of [
      await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', path: '/during' } }),
      await s.request('GET', '/v1/links'),
      await s.request('GET', '/readyz'),
    ]) {
      assert.equal(r.status, 503)
      assert.equal(r.headers['retry-after'], '1')
      assert.equal(r.body.error.code, 'service_unavailable')
      assert.doesNotMatch(r.text, /select|insert|from|ECONN|terminated/i)
    }
    const redirect = await s.request('GET', '/not-cached', { token: null })
    assert.equal(redirect.status, 503)

    await proxy.restore()
    assert.equal((await s.request('GET', '/readyz')).status, 200)
    assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', path: '/after' } })).status, 201)
    assert.equal((await s.request('GET', '/after', { token: null })).headers.location, 'https://a.example/')
  })

  test('an outage is logged once at error level, with its cause, and once more when it ends; the requests it fails get a warning each, without a stack', async () => {
    const lines: { level: number; msg: string; err?: unknown }[] = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) })
    const logged = await startTestServer({ database: { env: { ...database.env, DATABASE_URL: proxy.url }, drop: async () => {} }, container: { logger } })
    let cut = false
    try {
      assert.equal((await logged.request('GET', '/v1/links')).status, 200)
      await proxy.cut()
      cut = true
      const from = lines.length
      // Redirects alone meet it first (they answer before the API's error handling): logged all the same.
      for (let i = 0; i < 5; i++) assert.equal((await logged.request('GET', `/not-cached-${i}`, { token: null })).status, 503)
      assert.equal(lines.slice(from).filter((l) => l.level >= 50).length, 1, 'an outage seen by redirects only is logged')
      for (let i = 0; i < 20; i++) {
        assert.equal((await logged.request('POST', '/v1/links', { json: { destination: 'https://a.example/', path: `/down-${i}` } })).status, 503)
        assert.equal((await logged.request('GET', '/readyz', { token: null })).status, 503)
      }
      const during = lines.slice(from)
      const errors = during.filter((l) => l.level >= 50)
      assert.equal(errors.length, 1, JSON.stringify(errors))
      assert.match((errors[0] as { msg: string }).msg, /^the database is unavailable \(.+\); requests answer 503 until it answers again$/)
      const warnings = during.filter((l) => l.level === 40 && l.msg.startsWith('answered 503'))
      assert.ok(warnings.length >= 20, `one warning per failed request (${warnings.length})`)
      assert.ok(
        warnings.every((l) => l.err === undefined),
        'no stack',
      )
      await proxy.restore()
      cut = false
      for (let waited = 0; !lines.some((l) => l.msg.startsWith('the database answers again')); waited += 100) {
        assert.ok(waited < 30_000, 'the end of the outage is logged')
        await sleep(100)
      }
      assert.match(lines.find((l) => l.msg.startsWith('the database answers again'))?.msg ?? '', /; \d+ requests were answered 503 meanwhile$/)
    } finally {
      if (cut) await proxy.restore()
      await logged.close()
    }
  })

  const expect503 = (r: { status: number; headers: Record<string, unknown>; body: { error: { code: string } }; text: string }) => {
    assert.equal(r.status, 503, r.text)
    assert.equal(r.headers['retry-after'], '1')
    assert.equal(r.body.error.code, 'service_unavailable')
  }

  test('a connection cut while its query is in flight fails that request with 503; the process keeps serving and reconnects', async () => {
    assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://a.example/', path: '/cut-before' } })).status, 201)
    proxy.pause()
    const inFlight = s.request('POST', '/v1/links', { json: { destination: 'https://a.example/', path: '/cut-during' } })
    await new Promise((resolve) => setTimeout(resolve, 300))
    // The sockets die under a query that was sent: node-postgres emits 'error' on the checked-out client.
    await proxy.cut()
    expect503(await inFlight)
    assert.equal((await s.request('GET', '/healthz', { token: null })).status, 200)
    await proxy.restore()
    assert.equal((await s.request('GET', '/readyz')).status, 200)
    assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://a.example/', path: '/cut-after' } })).status, 201)
    assert.equal((await s.request('GET', '/cut-after', { token: null })).headers.location, 'https://a.example/')
  })

  test('while packets vanish, /readyz and queries answer 503 within their bounds instead of hanging', async () => {
    assert.equal((await s.request('GET', '/readyz')).status, 200)
    proxy.pause()
    try {
      expect503(await s.request('GET', '/readyz'))
      expect503(await s.request('GET', '/v1/links'))
    } finally {
      await proxy.cut()
      await proxy.restore()
    }
    assert.equal((await s.request('GET', '/readyz')).status, 200)
  })

  test('a server started before PostgreSQL answers waits for it (DATABASE_START_TIMEOUT_MS), then serves', async () => {
    const late = await startTcpProxy(database.env.DATABASE_URL as string, 5432)
    await late.cut()
    const port = await freePort()
    const child = tracked(
      spawn(process.execPath, [MAIN], {
        env: {
          ...process.env,
          ...database.env,
          DATABASE_URL: late.url,
          PORT: String(port),
          LINKLINE_BOOTSTRAP_TOKEN: 'late-database-token-0123456789',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    )
    let output = ''
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const exited = once(child, 'exit')
    try {
      // Restored only once the server has said it waits, so the test does not depend on how fast it starts.
      for (let waited = 0; !output.includes('the database does not answer yet'); waited += 50) {
        assert.ok(waited < 20_000 && child.exitCode === null, `the server did not wait for the database: ${output}`)
        await sleep(50)
      }
      await late.restore()
      for (
        let waited = 0;
        (await send(`http://127.0.0.1:${port}`, 'GET', '/readyz').then(
          (r) => r.status,
          () => 0,
        )) !== 200;
        waited += 50
      ) {
        assert.ok(waited < 20_000 && child.exitCode === null, `the server never became ready: ${output}`)
        await sleep(50)
      }
    } finally {
      child.kill('SIGTERM')
      await exited
      await late.close()
    }
    assert.equal(child.exitCode, 0, output)
  })
})
