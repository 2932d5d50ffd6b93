import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, beforeEach, describe, test } from 'node:test'
import SQLite from 'better-sqlite3'
import { isUniqueViolation } from './errors.js'
import { FLUSH_WAIT_MS, GroupCommit } from './group-commit.js'

describe('group commit on one SQLite connection (no HTTP)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-group-'))
  after(() => rmSync(dir, { recursive: true, force: true }))
  let file: string
  let sqlite: SQLite.Database
  let statements: string[]
  let failCommit: boolean
  /** The log flushes asked for, each settled by the test (or at once while `flushAtOnce`). */
  let flushes: { resolve: () => void; reject: (error: unknown) => void }[]
  let flushAtOnce: boolean
  let group: GroupCommit
  let n = 0

  beforeEach(() => {
    sqlite?.close()
    file = join(dir, `group-${n++}.db`)
    sqlite = new SQLite(file)
    sqlite.pragma('journal_mode = WAL')
    sqlite.exec('create table items (name text primary key)')
    statements = []
    failCommit = false
    flushes = []
    flushAtOnce = true
    group = new GroupCommit(
      {
        exec: async (statement) => {
          statements.push(statement)
          if (statement === 'commit' && failCommit) throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' })
          sqlite.exec(statement)
        },
        inTransaction: () => sqlite.inTransaction,
        durable: () => {
          statements.push('flush')
          if (flushAtOnce) return Promise.resolve()
          return new Promise((resolve, reject) => flushes.push({ resolve, reject }))
        },
      },
      () => performance.now() + 2000,
    )
  })

  /** Another connection's view: what is committed. */
  const committed = () => {
    const other = new SQLite(file, { readonly: true })
    try {
      return (other.prepare('select name from items order by name').all() as { name: string }[]).map((r) => r.name)
    } finally {
      other.close()
    }
  }
  const insert = (name: string) =>
    group.write(performance.now() + 2000, async () => {
      statements.push(`insert ${name}`)
      sqlite.prepare('insert into items (name) values (?)').run(name)
    })

  test('writers queued together share one transaction and one COMMIT; each learns of it only after the COMMIT', async () => {
    const answeredAfter: number[] = []
    await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map(async (name) => {
        await insert(name)
        answeredAfter.push(statements.lastIndexOf('commit'))
        // Answered: committed for every other connection.
        assert.ok(committed().includes(name))
      }),
    )
    assert.equal(statements.filter((s) => s === 'begin immediate').length, 1)
    assert.equal(statements.filter((s) => s === 'commit').length, 1)
    assert.ok(answeredAfter.every((at) => at >= 0))
    assert.deepEqual(committed(), ['a', 'b', 'c', 'd', 'e'])
  })

  /** A writer of several statements: a transaction of the group (its own savepoint). */
  const transaction = async (names: string[]) => {
    await group.begin(performance.now() + 2000)
    try {
      for (const name of names) {
        statements.push(`insert ${name}`)
        sqlite.prepare('insert into items (name) values (?)').run(name)
      }
    } catch (error) {
      await group.rollback()
      throw error
    }
    await group.commit()
  }

  test("a writer's constraint error undoes its own writes only: the others of its group commit", async () => {
    sqlite.exec("insert into items values ('taken')")
    const outcomes = await Promise.allSettled([insert('a'), insert('taken'), transaction(['b', 'c']), transaction(['d', 'a']), insert('e')])
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
    )
    for (const o of outcomes) if (o.status === 'rejected') assert.ok(isUniqueViolation(o.reason))
    assert.equal(statements.filter((s) => s === 'commit').length, 1)
    // A single statement is undone by SQLite itself; a transaction goes back to its savepoint (d with it).
    assert.equal(statements.filter((s) => s.startsWith('savepoint')).length, 2)
    assert.equal(statements.filter((s) => s.startsWith('rollback to')).length, 1)
    assert.deepEqual(committed(), ['a', 'b', 'c', 'e', 'taken'])
  })

  test('a COMMIT that fails fails every writer of the group, and none of their writes stays', async () => {
    failCommit = true
    const outcomes = await Promise.allSettled(['a', 'b', 'c'].map((name) => insert(name)))
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : 'fulfilled')),
      ['SQLITE_IOERR', 'SQLITE_IOERR', 'SQLITE_IOERR'],
    )
    assert.equal(sqlite.inTransaction, false)
    assert.deepEqual(committed(), [])
    // The next writer opens a group of its own.
    failCommit = false
    await insert('d')
    assert.deepEqual(committed(), ['d'])
  })

  test('a writer whose statement ends the transaction (the disk full) fails the writers of its group; the next opens another', async () => {
    // Room for small rows, not for a 100 kB one: SQLite ends the whole transaction on SQLITE_FULL.
    sqlite.pragma(`max_page_count = ${(sqlite.pragma('page_count', { simple: true }) as number) + 2}`)
    const large = () =>
      group.write(performance.now() + 2000, async () => {
        statements.push('insert large')
        sqlite.prepare('insert into items (name) values (?)').run('x'.repeat(100_000))
      })
    const outcomes = await Promise.allSettled([insert('a'), large(), insert('b')])
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : 'fulfilled')),
      ['SQLITE_FULL', 'SQLITE_FULL', 'fulfilled'],
      'a, released into the group, is lost with it; b, after, commits in a group of its own',
    )
    assert.deepEqual(
      statements.filter((s) => s === 'begin immediate' || s.startsWith('insert') || s === 'commit'),
      ['begin immediate', 'insert a', 'insert large', 'begin immediate', 'insert b', 'commit'],
    )
    assert.deepEqual(committed(), ['b'])
  })

  test('a writer after a commit opens the next group; drain waits for the open group', async () => {
    await insert('a')
    const late = insert('b')
    await group.drain()
    assert.deepEqual(committed(), ['a', 'b'])
    await late
    assert.equal(statements.filter((s) => s === 'commit').length, 2)
  })

  test('writers are told only once their COMMIT is flushed; the writers that come during a flush commit together after it', async () => {
    flushAtOnce = false
    let answered = false
    const first = insert('a').then(() => (answered = true))
    await until(() => flushes.length === 1)
    assert.deepEqual(committed(), ['a'], 'committed for every other connection')
    assert.equal(answered, false, 'not answered before the flush')
    // Writers that come while the disk is busy run, and wait in an open group for the flush to end.
    const next = [insert('b'), insert('c')]
    await until(() => statements.includes('insert c'))
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.deepEqual(committed(), ['a'], 'b and c wait for the flush to commit')
    flushes[0]!.resolve()
    await first
    await until(() => flushes.length === 2)
    assert.deepEqual(committed(), ['a', 'b', 'c'])
    flushes[1]!.resolve()
    await Promise.all(next)
    assert.deepEqual(
      statements.filter((s) => s === 'commit' || s === 'flush'),
      ['commit', 'flush', 'commit', 'flush'],
    )
  })

  test('a group left open for a slow flush commits after FLUSH_WAIT_MS, so the write lock is not held for the disk', async () => {
    flushAtOnce = false
    void insert('a')
    await until(() => flushes.length === 1)
    let told = false
    void insert('b').then(() => (told = true))
    await until(() => statements.includes('insert b'))
    const opened = performance.now()
    // The first flush never ends here: b's group commits anyway, and another process can take the lock.
    await until(() => committed().includes('b'), 5_000)
    assert.ok(performance.now() - opened >= FLUSH_WAIT_MS - 5, 'it waited for the flush first')
    const other = new SQLite(file)
    other.exec('begin immediate')
    other.exec('rollback')
    other.close()
    await until(() => flushes.length === 2)
    assert.equal(told, false, 'b is answered only once its own flush returns')
    for (const flush of flushes) flush.resolve()
    await until(() => told)
  })

  test("a flush that fails fails its group's writers; the next group goes on", async () => {
    flushAtOnce = false
    const lost = Promise.allSettled([insert('a'), insert('b')])
    await until(() => flushes.length === 1)
    flushes[0]!.reject(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_FSYNC' }))
    assert.deepEqual(
      (await lost).map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : 'fulfilled')),
      ['SQLITE_IOERR_FSYNC', 'SQLITE_IOERR_FSYNC'],
    )
    flushAtOnce = true
    await insert('c')
  })

  test('drain waits for the flush of the last group', async () => {
    flushAtOnce = false
    let told = false
    void insert('a').then(() => (told = true))
    await until(() => flushes.length === 1)
    let drained = false
    const draining = group.drain().then(() => (drained = true))
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal(drained, false)
    flushes[0]!.resolve()
    await draining
    assert.equal(told, true)
  })
})

/** Polls `condition` every millisecond, for up to `ms` (2 s). */
async function until(condition: () => boolean, ms = 2000): Promise<void> {
  for (const started = performance.now(); !condition();) {
    if (performance.now() - started > ms) throw new Error(`condition not met within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}
