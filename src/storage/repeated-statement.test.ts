import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import SQLite from 'better-sqlite3'
import { backends, needsPostgres } from '../../test/backends.js'
import { openTestStorage, type TestStorage } from '../../test/storage.js'
import { repeatedStatement } from './repeated-statement.js'
import type { ClickSaltsTable } from '../stats/stats.table.js'

for (const backend of backends) {
  describe(`repeatedStatement (${backend})`, () => {
    let t: TestStorage
    before(async () => {
      t = await openTestStorage(backend)
    })
    after(() => t.close())
    const salts = (...days: number[]) => days.map((day) => ({ day, salt: `s${day}` }))
    const stored = async () =>
      (await t.storage.db.selectFrom('click_salts').select(['day', 'salt']).orderBy('day').execute()).map((r) => [Number(r.day), r.salt])

    test('full batches reuse the SQL with their own values; other sizes are built as usual; RETURNING rows come back', async () => {
      const insert = repeatedStatement<ClickSaltsTable, { day: number }>(['day', 'salt'], 2, (trx, rows) =>
        trx.insertInto('click_salts').values(rows).returning('day'),
      )
      const returned = await t.storage.db
        .transaction()
        .execute(async (trx) => [await insert(trx, salts(1, 2)), await insert(trx, salts(3, 4)), await insert(trx, salts(5)), await insert(trx, salts(6, 7))])
      assert.deepEqual(
        returned.map((rows) => rows.map((r) => Number(r.day))),
        [[1, 2], [3, 4], [5], [6, 7]],
      )
      assert.deepEqual(
        await stored(),
        [1, 2, 3, 4, 5, 6, 7].map((day) => [day, `s${day}`]),
      )
    })

    test('columns listed in another order than the statement binds them fail at the first full batch, before anything is written', async () => {
      const insert = repeatedStatement<ClickSaltsTable>(['salt', 'day'], 2, (trx, rows) => trx.insertInto('click_salts').values(rows))
      await assert.rejects(
        t.storage.db.transaction().execute((trx) => insert(trx, salts(10, 11))),
        /does not bind its values in the order of its columns \(salt, day\)/,
      )
      assert.equal((await stored()).filter(([day]) => Number(day) >= 10).length, 0)
    })
  })
}

test('one statement serves every database it meets, each dialect with its own SQL text', { skip: needsPostgres }, async () => {
  const stores = await Promise.all(backends.map((backend) => openTestStorage(backend)))
  try {
    const insert = repeatedStatement<ClickSaltsTable>(['day', 'salt'], 1, (db, rows) => db.insertInto('click_salts').values(rows))
    for (const round of [1, 2]) for (const [i, t] of stores.entries()) await insert(t.storage.db, [{ day: 10 * i + round, salt: `${t.storage.dialect}` }])
    for (const [i, t] of stores.entries()) {
      const rows = await t.storage.db.selectFrom('click_salts').select(['day', 'salt']).orderBy('day').execute()
      assert.deepEqual(
        rows.map((r) => [Number(r.day), r.salt]),
        [1, 2].map((round) => [10 * i + round, t.storage.dialect]),
      )
    }
  } finally {
    for (const t of stores) await t.close()
  }
})

describe('repeatedStatement, a SELECT on SQLite', () => {
  test('runs on the reading connection, every time: it answers while another connection holds the write lock', async () => {
    const t = await openTestStorage('sqlite')
    const holder = new SQLite((t.database.env.DATABASE_URL as string).slice('sqlite:'.length))
    try {
      await t.storage.db.insertInto('click_salts').values({ day: 1, salt: 'one' }).execute()
      const saltOf = repeatedStatement<{ day: number }, { salt: string }>(['day'], 1, (db, days) =>
        db
          .selectFrom('click_salts')
          .select('salt')
          .where(
            'day',
            'in',
            days.map((d) => d.day),
          ),
      )
      holder.exec('begin immediate')
      // A write would now fail SQLITE_BUSY after WRITE_WAIT_MS (sqlite-driver.test.ts); these read at once.
      assert.deepEqual(await saltOf(t.storage.db, [{ day: 1 }]), [{ salt: 'one' }])
      assert.deepEqual(await saltOf(t.storage.db, [{ day: 2 }]), [])
    } finally {
      if (holder.inTransaction) holder.exec('rollback')
      holder.close()
      await t.close()
    }
  })
})
