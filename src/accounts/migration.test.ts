import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { linkRow } from '../../test/factories.js'
import { openTestStorage } from '../../test/storage.js'
import type { LinkRow } from '../links/links.table.js'
import { migrateToLatest } from '../storage/migrate.js'

for (const backend of backends) {
  describe(`migration 0019 (${backend})`, () => {
    test('every owner id in use becomes a workspace; all-scope tokens gain the new scopes; sessions are kept', async () => {
      const t = await openTestStorage(backend, '0018-domain-claims-per-owner')
      const { db } = t.storage
      try {
        const all = 'links:read links:write conversations:read conversations:write domains:read domains:write webhooks:read webhooks:write tokens:write'
        const token = (id: string, owner_id: string, scopes: string) => ({
          id,
          owner_id,
          name: null,
          scopes,
          token_hash: id,
          prefix: 'll_x',
          created_at: 1,
          revoked_at: null,
        })
        await db
          .insertInto('tokens')
          .values([token('tok_all', 'alice', all), token('tok_narrow', 'alice', 'links:read'), token('tok_bob', 'bob', all)])
          .execute()
        // The link as it was before 0019 added who made it.
        const link: Partial<LinkRow> = linkRow({ owner_id: 'carol' })
        delete link.created_by_type
        delete link.created_by_id
        delete link.created_by_label
        await db
          .insertInto('links')
          .values(link as LinkRow)
          .execute()
        await db.insertInto('sessions').values({ id: 'ses_kept', session_hash: 'hash', token_id: 'tok_all', created_at: 5, last_used_at: 6 }).execute()

        await migrateToLatest(t.storage)

        const workspaces = await db.selectFrom('workspaces').select(['id', 'name']).orderBy('id').execute()
        assert.deepEqual(workspaces, [
          { id: 'alice', name: 'alice' },
          { id: 'bob', name: 'bob' },
          { id: 'carol', name: 'carol' },
        ])
        const scopes = Object.fromEntries((await db.selectFrom('tokens').select(['id', 'scopes']).execute()).map((r) => [r.id, r.scopes]))
        assert.equal(scopes.tok_all, `${all} members:read members:write audit:read`)
        assert.equal(scopes.tok_bob, scopes.tok_all)
        assert.equal(scopes.tok_narrow, 'links:read')
        const session = await db.selectFrom('sessions').selectAll().executeTakeFirstOrThrow()
        assert.deepEqual(
          { ...session, created_at: Number(session.created_at), last_used_at: Number(session.last_used_at) },
          {
            id: 'ses_kept',
            session_hash: 'hash',
            token_id: 'tok_all',
            user_id: null,
            workspace_id: null,
            created_at: 5,
            last_used_at: 6,
          },
        )
        const made = await db.selectFrom('tokens').select(['user_id', 'last_used_at', 'created_by_type']).where('id', '=', 'tok_all').executeTakeFirstOrThrow()
        assert.deepEqual(made, { user_id: null, last_used_at: null, created_by_type: null }, 'made before people existed')
      } finally {
        await t.close()
      }
    })
  })
}
