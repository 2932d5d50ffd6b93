import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, describe, test } from 'node:test'
import type SQLite from 'better-sqlite3'
import { pino } from 'pino'
import { buildApp } from '../app.js'
import { loadConfig } from '../config.js'
import { createContainer } from '../container.js'
import { createTestDatabase, startTestServer, type TestDatabase } from '../../test/build-test-app.js'
import { freePort } from '../../test/free-port.js'
import { send, type Response } from '../../test/http-client.js'

interface LogLine {
  level: number
  msg: string
  [field: string]: unknown
}
const ERROR = 50

/** A logger whose lines the test reads. */
function capture(): { logger: ReturnType<typeof pino>; lines: LogLine[] } {
  const lines: LogLine[] = []
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) }) }
}

const expect503 = (r: Response) => {
  assert.equal(r.status, 503, r.text)
  assert.equal(r.headers['retry-after'], '1')
  assert.equal(r.body.error.code, 'service_unavailable')
  assert.doesNotMatch(r.text, /sqlite|insert|rollback|full|\/tmp/i)
}

/** Polls until `check` holds (generously: the machine is shared). */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    if (await check()) return
    await sleep(100)
  }
  assert.fail(`${what} never happened`)
}

// SQLite's max_page_count makes a full disk reproducible without a small file system: the server's
// writer connection may not grow the file past it (PRAGMA query_only stands for a file it cannot write,
// which file permissions cannot show when the tests run as root, as in CI containers).
describe('SQLite cannot write: a full disk, a file the server may not write', () => {
  let database: TestDatabase | undefined
  after(() => database?.drop())

  test('a full disk answers writes 503 with Retry-After, turns /readyz 503, logs "disk full" once, and recovers by itself', async () => {
    const { logger, lines } = capture()
    let writer: SQLite.Database | undefined
    const s = await startTestServer({ container: { logger, sqliteWriter: (connection) => (writer = connection) } })
    try {
      const file = (s.env.DATABASE_URL as string).slice('sqlite:'.length)
      const create = (i: number) =>
        s.request('POST', '/v1/links', { json: { destination: 'https://full.example/', path: `/full-${i}`, title: 'x'.repeat(200) } })
      assert.equal((await create(0)).status, 201)
      const connection = writer as SQLite.Database
      connection.pragma(`max_page_count = ${connection.pragma('page_count', { simple: true }) as number}`)
      const before = lines.length

      // The pages left fill up within a few links; from then on every create fails.
      let failed: Response | undefined
      for (let i = 1; i < 1000 && failed === undefined; i++) {
        const r = await create(i)
        if (r.status !== 201) failed = r
      }
      assert.ok(failed !== undefined, 'the database filled up')
      expect503(failed)
      for (let i = 0; i < 5; i++) expect503(await create(1000 + i))
      expect503(await s.request('GET', '/readyz', { token: null }))
      assert.equal((await s.request('GET', '/v1/links')).status, 200, 'reads still work')

      const during = lines.slice(before)
      const errors = during.filter((l) => l.level >= ERROR)
      assert.equal(errors.length, 1, JSON.stringify(errors))
      assert.match((errors[0] as LogLine).msg, /^disk full: the database .* cannot grow \(.* MiB free on its file system\)/)
      assert.equal((errors[0] as LogLine).database, file)
      assert.equal(typeof (errors[0] as LogLine).freeBytes, 'number')
      assert.ok(!during.some((l) => /cannot rollback/.test(JSON.stringify(l))), 'the cause is not masked by a failed rollback')

      connection.pragma('max_page_count = 1073741823')
      await eventually('/readyz answering 200', async () => (await s.request('GET', '/readyz', { token: null })).status === 200)
      assert.equal((await create(2000)).status, 201)
      assert.ok(lines.some((l) => l.msg.startsWith('the database accepts writes again')))
    } finally {
      await s.close()
    }
  })

  test('a database file the server cannot write is said at start (file, user, permission); writes answer 503, /readyz 503, reads work', async () => {
    database = await createTestDatabase('sqlite')
    const first = await startTestServer({ database })
    const link = (await first.request('POST', '/v1/links', { json: { destination: 'https://ro.example/', path: '/ro' } })).body.data
    const token = first.token
    await first.close()

    // Started as the server starts (startTestServer would write a token first).
    const { logger, lines } = capture()
    let writer: SQLite.Database | undefined
    const port = await freePort()
    const container = createContainer(loadConfig({ ...database.env, PORT: String(port) }), {
      logger,
      sqliteWriter: (connection) => {
        writer = connection
        connection.pragma('query_only = ON')
      },
    })
    await container.start()
    const app = await buildApp(container)
    await app.listen({ port, host: '127.0.0.1' })
    const request = (method: string, path: string, json?: unknown) =>
      send(`http://127.0.0.1:${port}`, method, path, { token, headers: { host: `localhost:${port}` }, ...(json === undefined ? {} : { json }) })
    try {
      const file = (database.env.DATABASE_URL as string).slice('sqlite:'.length)
      const said = lines.filter((l) => l.level >= ERROR)
      assert.equal(said.length, 1, JSON.stringify(said))
      assert.match(
        (said[0] as LogLine).msg,
        new RegExp(`^the database ${file} cannot be written by user \\S+ \\(uid \\d+\\): the file is mode 0[0-7]{3} owned by uid \\d+`),
      )

      expect503(await request('GET', '/readyz'))
      expect503(await request('POST', '/v1/links', { destination: 'https://ro.example/', path: '/ro-2' }))
      assert.equal((await request('GET', `/v1/links/${link.id}`)).status, 200)
      assert.deepEqual(
        lines.filter((l) => l.level >= ERROR).map((l) => l.msg),
        [(said[0] as LogLine).msg],
        'the fault is logged once, not per request',
      )

      ;(writer as SQLite.Database).pragma('query_only = OFF')
      await eventually('/readyz answering 200', async () => (await request('GET', '/readyz')).status === 200)
      assert.equal((await request('POST', '/v1/links', { destination: 'https://ro.example/', path: '/ro-3' })).status, 201)
    } finally {
      await app.close()
      await container.close()
    }
  })
})
