import assert from 'node:assert/strict'
import { mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import SQLite from 'better-sqlite3'
import { WalSync } from './wal-sync.js'

describe('the write-ahead log flushed off the event loop', () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-wal-sync-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  test("a SQLite database's -wal file is flushed with fdatasync, and stays open for the next flushes", async () => {
    const file = join(dir, 'real.db')
    const sqlite = new SQLite(file)
    sqlite.pragma('journal_mode = WAL')
    sqlite.exec('create table t (x); insert into t values (1)')
    const files: string[] = []
    const wal = new WalSync(`${file}-wal`, async (log) => {
      files.push(readlinkSync(`/proc/self/fd/${log.fd}`))
      await log.datasync()
    })
    await wal.durable()
    sqlite.exec('insert into t values (2)')
    await wal.durable()
    assert.deepEqual(files, [`${file}-wal`, `${file}-wal`])
    await wal.close()
    sqlite.close()
  })

  test('callers during a flush share the next one: it began after their writes', async () => {
    const file = join(dir, 'shared')
    writeFileSync(file, '')
    const held: (() => void)[] = []
    const wal = new WalSync(file, () => new Promise<void>((resolve) => held.push(resolve)))
    const told: string[] = []
    const first = wal.durable().then(() => told.push('first'))
    const later = ['a', 'b', 'c'].map((name) => wal.durable().then(() => told.push(name)))
    await until(() => held.length === 1)
    held[0]!()
    await first
    assert.deepEqual(told, ['first'], 'the later callers wait for a flush begun after them')
    await until(() => held.length === 2)
    held[1]!()
    await Promise.all(later)
    assert.deepEqual(told, ['first', 'a', 'b', 'c'])
    assert.equal(held.length, 2, 'one flush for the three')
    await wal.close()
  })

  test('a failed flush fails its callers with SQLite’s code for it; the next flush is tried anew', async () => {
    const file = join(dir, 'failing')
    writeFileSync(file, '')
    let fail = true
    const wal = new WalSync(file, async () => {
      if (fail) throw Object.assign(new Error('input/output error'), { code: 'EIO' })
    })
    await assert.rejects(wal.durable(), (error: Error & { code?: string; cause?: { code?: string } }) => {
      assert.equal(error.code, 'SQLITE_IOERR_FSYNC')
      assert.equal(error.cause?.code, 'EIO')
      return true
    })
    fail = false
    await wal.durable()
    await wal.close()
  })

  test('a log that cannot be opened fails the flush; it is opened again at the next', async () => {
    const file = join(dir, 'later')
    const wal = new WalSync(file, async () => {})
    await assert.rejects(wal.durable(), (error: Error & { code?: string; cause?: { code?: string } }) => {
      assert.equal(error.code, 'SQLITE_IOERR_FSYNC')
      assert.equal(error.cause?.code, 'ENOENT')
      return true
    })
    writeFileSync(file, '')
    await wal.durable()
    await wal.close()
  })
})

async function until(condition: () => boolean): Promise<void> {
  for (const started = performance.now(); !condition();) {
    if (performance.now() - started > 2000) throw new Error('condition not met within 2 s')
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}
