import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import { backends } from '../../test/backends.js'
import { openTestStorage } from '../../test/storage.js'
import { isUniqueViolation } from '../storage/errors.js'
import { migrateToLatest } from '../storage/migrate.js'

for (const backend of backends) {
  describe(`migration 0018 (${backend})`, () => {
    test('domains keep their claims, renewed as of their creation; a name takes a claim per owner and one verified owner', async () => {
      const t = await openTestStorage(backend, '0017-click-blocks-by-number')
      const db = t.storage.db
      try {
        await sql`insert into domains (name, owner_id, created_at, status, verification_token, verified_at, last_checked_at) values
          ('kept.example', 'alice', 1000, 'verified', 'linkline-verify=aa', 1500, 1500),
          ('pending.example', 'bob', 2000, 'pending', 'linkline-verify=bb', null, 2500)`.execute(db)
        await migrateToLatest(t.storage)
        const rows = await db.selectFrom('domains').selectAll().orderBy('name').execute()
        assert.deepEqual(
          rows.map((r) => ({ ...r, created_at: Number(r.created_at), renewed_at: Number(r.renewed_at) })),
          [
            {
              name: 'kept.example',
              owner_id: 'alice',
              created_at: 1000,
              status: 'verified',
              verification_token: 'linkline-verify=aa',
              verified_at: rows[0]?.verified_at,
              last_checked_at: rows[0]?.last_checked_at,
              renewed_at: 1000,
              created_by_type: null,
              created_by_id: null,
              created_by_label: null,
            },
            {
              name: 'pending.example',
              owner_id: 'bob',
              created_at: 2000,
              status: 'pending',
              verification_token: 'linkline-verify=bb',
              verified_at: null,
              last_checked_at: rows[1]?.last_checked_at,
              renewed_at: 2000,
              created_by_type: null,
              created_by_id: null,
              created_by_label: null,
            },
          ],
        )
        const claim = (name: string, owner: string, status: 'pending' | 'verified') =>
          db
            .insertInto('domains')
            .values({
              name,
              owner_id: owner,
              created_at: 3000,
              status,
              verification_token: 'linkline-verify=cc',
              verified_at: null,
              last_checked_at: null,
              renewed_at: 3000,
            })
            .execute()
        await claim('pending.example', 'alice', 'pending')
        await claim('pending.example', 'carol', 'verified')
        const refused = async (work: Promise<unknown>, why: string) =>
          assert.ok(
            isUniqueViolation(
              await work.then(
                () => undefined,
                (error: unknown) => error,
              ),
            ),
            why,
          )
        await refused(claim('pending.example', 'dave', 'verified'), 'one verified owner per name')
        await refused(claim('pending.example', 'alice', 'pending'), 'one claim per owner and name')
      } finally {
        await t.close()
      }
    })
  })
}
