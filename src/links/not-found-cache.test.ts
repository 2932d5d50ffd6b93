import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { needsPostgresAndRedis } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { cli, cliFailure } from '../../test/process.js'
import type { ContainerOptions } from '../container.js'
import { NOT_FOUND_TTL_MS } from './redirect.cache.js'

/**
 * Paths a running server answered 404 for, then made to exist by another process (`linkline links
 * import`, `linkline domains rename`): the server hears of them through Redis at once, or without
 * Redis once its cached 404 expires.
 */
const OLD = 'old.example'
const NEW = 'new.example'

let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'linkline-not-found-'))
})
after(() => rmSync(dir, { recursive: true, force: true }))

function suite(name: string, options: { backend: 'sqlite' | 'postgres'; container?: ContainerOptions; deadlineMs: number; skip?: string | false }) {
  describe(name, { skip: options.skip ?? false }, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend: options.backend, env: { LINKLINE_DOMAINS: `${NEW},${OLD}` }, container: options.container })
    })
    after(() => s?.close())

    const visit = (host: string, path: string) => s.request('GET', path, { token: null, headers: { host } })
    /** Caches a 404 for the path, runs the command, and waits for the path to redirect. */
    async function appears(host: string, path: string, command: string[]): Promise<void> {
      assert.equal((await visit(host, path)).status, 404)
      assert.equal((await visit(host, path)).status, 404, 'answered from the cache')
      const r = await cli(command, s.env)
      assert.equal(r.status, 0, cliFailure(r))
      for (let waited = 0; ; waited += 100) {
        const answer = await visit(host, path)
        if (answer.status === 302) return assert.equal(answer.headers.location, `https://example.com${path}`)
        assert.ok(waited < options.deadlineMs, `${host}${path} still ${answer.status} after ${options.deadlineMs} ms`)
        await sleep(100)
      }
    }

    test('a path created by links import', async () => {
      const file = join(dir, `${options.backend}.csv`)
      writeFileSync(file, `destination,path,domain,title,tags\nhttps://example.com/imported,/imported,${NEW},,\n`)
      await appears(NEW, '/imported', ['links', 'import', file, '--owner', 'alice'])
    })

    test('a path moved here by domains rename', async () => {
      const created = await s.request('POST', '/v1/links', { json: { destination: 'https://example.com/renamed', path: '/renamed', domain: OLD } })
      assert.equal(created.status, 201, created.text)
      await appears(NEW, '/renamed', ['domains', 'rename', OLD, NEW])
    })
  })
}

// The expiry, and then as long again and more for a loaded machine.
suite('cached 404s on SQLite without Redis expire', { backend: 'sqlite', deadlineMs: 2 * NOT_FOUND_TTL_MS + 10_000 })
// A 404 cached for an hour: only the command's invalidation can make the path redirect within the test.
suite('the CLI tells running servers through Redis', {
  backend: 'postgres',
  container: { notFoundTtlMs: 3_600_000 },
  deadlineMs: 10_000,
  skip: needsPostgresAndRedis,
})
