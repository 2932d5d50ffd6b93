import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { isSqliteBusy } from './errors.js'

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

/**
 * Takes SQLite's write lock on another connection, as another process would, without blocking this
 * one: the server under test runs in this process, and better-sqlite3's own wait (busy_timeout, 5 s)
 * would freeze it while one of its groups holds the lock, which then could never commit.
 */
async function holdWriteLock(file: string) {
  const holder = new Database(file, { timeout: 0 })
  for (const deadline = performance.now() + 10_000; ; await sleep(5)) {
    try {
      holder.exec('begin immediate')
      return holder
    } catch (error) {
      if (!isSqliteBusy(error) || performance.now() > deadline) throw error
    }
  }
}

describe('SQLite: another process holds the write lock', () => {
  let s: TestServer
  let file: string
  before(async () => {
    s = await startTestServer({ backend: 'sqlite' })
    file = (s.env.DATABASE_URL as string).slice('sqlite:'.length)
  })
  after(() => s.close())

  const timed = async (work: () => Promise<unknown>) => {
    const started = performance.now()
    await work()
    return performance.now() - started
  }

  test('reads and cache-miss redirects do not wait behind a pending write; writes fail fast with 503', async () => {
    const link = (await s.request('POST', '/v1/links', { json: { destination: 'https://locked.example/', path: '/locked' } })).body.data
    const read = async () => {
      const r = await s.request('GET', `/v1/links/${link.id}`)
      assert.equal(r.status, 200)
    }
    const redirect = async () => {
      s.container.redirectCache.clear()
      const r = await s.request('GET', '/locked', { token: null })
      assert.equal(r.status, 302)
    }
    const idle: number[] = []
    for (let i = 0; i < 7; i++) idle.push(await timed(read), await timed(redirect))

    const holder = await holdWriteLock(file)
    try {
      // A write is now waiting for the lock, and would hold every read behind it with one connection.
      const pendingWrite = s.request('POST', '/v1/links', { json: { destination: 'https://locked.example/2', path: '/locked-2' } })
      await new Promise((resolve) => setTimeout(resolve, 300))
      const locked: number[] = []
      for (let i = 0; i < 7; i++) locked.push(await timed(read), await timed(redirect))
      // Generous: the point is "not behind the write" (which waits up to seconds), not a tight bound.
      assert.ok(Math.max(...locked) < 20 * median(idle) + 100, `reads took up to ${Math.max(...locked)} ms under the lock, ${median(idle)} ms idle`)

      const write = await pendingWrite
      assert.equal(write.status, 503, write.text)
      assert.equal(write.headers['retry-after'], '1')
      assert.equal(write.body.error.code, 'service_unavailable')
    } finally {
      holder.exec('rollback')
      holder.close()
    }
    assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://locked.example/3', path: '/locked-3' } })).status, 201)
  })

  test('writes queued behind a locked database each fail within the wait, not one after another', async () => {
    const holder = await holdWriteLock(file)
    try {
      const single = await timed(async () => assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://q.example/' } })).status, 503))
      const many = await timed(async () => {
        const results = await Promise.all(Array.from({ length: 6 }, () => s.request('POST', '/v1/links', { json: { destination: 'https://q.example/' } })))
        for (const r of results) assert.equal(r.status, 503)
      })
      // Six queued writes take about as long as one, not six times as long.
      assert.ok(many < 3 * single, `six writes took ${many} ms, one ${single} ms`)
    } finally {
      holder.exec('rollback')
      holder.close()
    }
  })
})
