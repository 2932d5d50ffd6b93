import assert from 'node:assert/strict'
import { mkdtempSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import SQLite from 'better-sqlite3'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { freePort } from '../../test/free-port.js'
import { send } from '../../test/http-client.js'
import { startServerProcess } from '../../test/process.js'

// Writes sent at once commit in groups on SQLite (storage/group-commit.ts): each request must still
// be answered for its own write, after the commit that holds it.
for (const backend of backends) {
  describe(`concurrent link creates (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    })
    after(() => s.close())

    test('all answered for their own link, all stored; a path taken inside the group fails alone with 409', async () => {
      const taken = await s.request('POST', '/v1/links', { json: { destination: 'https://g.example/first', path: '/g-taken' } })
      assert.equal(taken.status, 201, taken.text)
      const bodies = [
        ...Array.from({ length: 30 }, (_, i) => ({ destination: `https://g.example/${i}`, path: `/g-${i}`, tags: ['group'] })),
        { destination: 'https://g.example/again', path: '/g-taken' },
        { destination: 'https://g.example/twice-a', path: '/g-twice' },
        { destination: 'https://g.example/twice-b', path: '/g-twice' },
        ...Array.from({ length: 10 }, (_, i) => ({ destination: `https://g.example/random/${i}` })),
      ]
      const answers = await Promise.all(
        bodies.map((json, i) => s.request('POST', '/v1/links', { json, headers: i % 3 === 0 ? { 'idempotency-key': `group-${i}` } : {} })),
      )
      for (const [i, answer] of answers.entries()) {
        const body = bodies[i] as { destination: string; path?: string }
        if (body.path === '/g-taken' || body.path === '/g-twice') continue
        assert.equal(answer.status, 201, answer.text)
        assert.equal(answer.body.data.destination, body.destination)
        if (body.path !== undefined) assert.equal(answer.body.data.path, body.path)
      }
      assert.equal(answers[30]?.status, 409)
      assert.equal(answers[30]?.body.error.code, 'conflict')
      assert.equal(answers[30]?.body.error.param, 'path')
      const twice = [answers[31]?.status, answers[32]?.status].sort()
      assert.deepEqual(twice, [201, 409])

      // Every link answered 201 is there, with its tags, and its idempotency key replays the same answer.
      const created = answers.filter((a) => a.status === 201)
      for (const answer of created) {
        const read = await s.request('GET', `/v1/links/${answer.body.data.id}`)
        assert.equal(read.status, 200, read.text)
        assert.equal(read.body.data.destination, answer.body.data.destination)
      }
      const replay = await s.request('POST', '/v1/links', { json: bodies[3], headers: { 'idempotency-key': 'group-3' } })
      assert.equal(replay.headers['idempotent-replayed'], 'true')
      assert.equal(replay.body.data.id, answers[3]?.body.data.id)
      const tagged = await s.request('GET', '/v1/links?query[tag]=group&limit=100')
      assert.equal(tagged.status, 200, tagged.text)
      assert.equal(tagged.body.data.length, 30)
      // One audit entry per link created, none for the refused ones.
      const audit = await s.request('GET', '/v1/audit-log?action=link.created&limit=100')
      assert.equal(audit.status, 200, audit.text)
      const auditedIds = new Set(
        (audit.body.data as { action: string; resourceId: string }[]).filter((e) => e.action === 'link.created').map((e) => e.resourceId),
      )
      for (const answer of created) assert.ok(auditedIds.has(answer.body.data.id), `audit entry of ${answer.body.data.id}`)
    })
  })
}

describe('a create is answered once the write-ahead log is on disk (SQLite)', () => {
  const gates: (() => void)[] = []
  const flushed: string[] = []
  let holding = false
  let s: TestServer
  before(async () => {
    s = await startTestServer({
      container: {
        // The flush the server asks for: which file it is, then, while the test holds flushes, held until it lets it go.
        walFlush: async (log) => {
          flushed.push(readlinkSync(`/proc/self/fd/${log.fd}`))
          if (holding) await new Promise<void>((resolve) => gates.push(resolve))
          await log.datasync()
        },
      },
    })
  })
  after(async () => {
    holding = false
    for (const open of gates.splice(0)) open()
    await s.close()
  })

  test('the answer waits for the flush of the -wal file; the link is readable meanwhile, and answered after', async () => {
    let answered = false
    holding = true
    const create = s.request('POST', '/v1/links', { json: { destination: 'https://w.example/held', path: '/held' } }).then((r) => ((answered = true), r))
    // Committed, so visible to reads, before it is on disk; but not answered.
    let listed: string[] = []
    for (let tries = 0; tries < 400 && listed.length === 0; tries++) {
      const meanwhile = await s.request('GET', '/v1/links?query[path]=/held')
      assert.equal(meanwhile.status, 200, meanwhile.text)
      listed = meanwhile.body.data.map((l: { path: string }) => l.path)
      if (listed.length > 0) break
      // The request's earlier writes (its token's last use) wait for flushes of their own: let those go.
      for (const open of gates.splice(0)) open()
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    assert.deepEqual(listed, ['/held'])
    assert.ok(gates.length > 0, 'a flush is held')
    assert.match(flushed.at(-1) ?? '', /\.db-wal$/, 'the write-ahead log is what is flushed')
    assert.equal(answered, false, 'not answered while the flush is held')
    holding = false
    while (!answered) {
      for (const open of gates.splice(0)) open()
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    const created = await create
    assert.equal(created.status, 201, created.text)
    assert.equal(created.body.data.path, '/held')
  })
})

describe('links answered 201 survive kill -9 (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-group-kill-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  test('the server is killed while creates are in flight: every link it answered 201 for is in the file', { timeout: 120_000 }, async () => {
    const token = 'group-commit-kill-token-0123456789'
    const port = await freePort()
    const file = join(dir, 'linkline.db')
    const server = await startServerProcess({ PORT: String(port), DATABASE_URL: `sqlite:${file}`, LINKLINE_BOOTSTRAP_TOKEN: token })
    const answered: string[] = []
    let killed = false
    const headers = { host: `localhost:${port}` }
    const client = async (c: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const r = await send(server.url, 'POST', '/v1/links', { token, headers, json: { destination: `https://k.example/${c}/${i}` } })
          if (r.status === 201) answered.push(r.body.data.id)
          if (answered.length >= 200 && !killed) {
            killed = true
            server.child.kill('SIGKILL')
          }
        } catch {
          // The kill cut this request: it was never answered.
          return
        }
      }
    }
    await Promise.all(Array.from({ length: 10 }, (_, c) => client(c)))
    await server.exited
    assert.ok(answered.length >= 200)
    const sqlite = new SQLite(file, { readonly: true })
    try {
      const stored = new Set((sqlite.prepare('select id from links').all() as { id: string }[]).map((r) => r.id))
      const lost = answered.filter((id) => !stored.has(id))
      assert.deepEqual(lost, [], 'links answered 201 but not stored')
    } finally {
      sqlite.close()
    }
  })
})
