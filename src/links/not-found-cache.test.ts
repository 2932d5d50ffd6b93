import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { needsPostgresAndRedis } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { cli, cliFailure } from '../../test/process.js'
import { NOT_FOUND_TTL_MS } from './redirect.cache.js'

/**
 * A path a running server answered 404 for, then created by another process (`linkline links import`),
 * which the server hears of through Redis at once, or without Redis once its cached 404 expires.
 */
let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'linkline-not-found-'))
})
after(() => rmSync(dir, { recursive: true, force: true }))

async function importedPathRedirects(s: TestServer, path: string, deadlineMs: number): Promise<void> {
  const visit = () => s.request('GET', path, { token: null })
  assert.equal((await visit()).status, 404)
  assert.equal((await visit()).status, 404, 'answered from the cache')
  const file = join(dir, `${path.slice(1)}.csv`)
  writeFileSync(file, `destination,path,domain,title,tags\nhttps://example.com${path},${path},,,\n`)
  const r = cli(['links', 'import', file, '--owner', 'alice'], s.env)
  assert.equal(r.status, 0, cliFailure(r))
  for (let waited = 0; ; waited += 100) {
    const answer = await visit()
    if (answer.status === 302) return assert.equal(answer.headers.location, `https://example.com${path}`)
    assert.ok(waited < deadlineMs, `${path} still ${answer.status} after ${deadlineMs} ms`)
    await sleep(100)
  }
}

describe('a cached 404 for a path created by the CLI (SQLite, no Redis)', () => {
  let s: TestServer
  before(async () => {
    s = await startTestServer({ backend: 'sqlite' })
  })
  after(() => s?.close())

  test('the path redirects once the cached 404 has expired', async () => {
    // The expiry, and then as long again for a loaded machine.
    await importedPathRedirects(s, '/stale-404', 2 * NOT_FOUND_TTL_MS + 10_000)
  })
})

describe('a cached 404 for a path created by the CLI (PostgreSQL + Redis)', { skip: needsPostgresAndRedis }, () => {
  let s: TestServer
  before(async () => {
    // A 404 cached for an hour: only the import's invalidation can make the path redirect within the test.
    s = await startTestServer({ backend: 'postgres', container: { notFoundTtlMs: 3_600_000 } })
  })
  after(() => s?.close())

  test('the import tells the running server through Redis', async () => {
    await importedPathRedirects(s, '/told-404', 10_000)
  })
})
