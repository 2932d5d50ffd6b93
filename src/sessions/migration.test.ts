import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { openTestStorage } from '../../test/storage.js'
import { createMigrator } from '../storage/migrate.js'

for (const backend of backends) {
  describe(`migration 0012 (${backend})`, () => {
    test('tokens that held every scope of their time gain tokens:write; narrower tokens do not', async () => {
      const t = await openTestStorage(backend, '0008-verify-domains')
      const storage = t.storage
      try {
        const all = 'links:read links:write conversations:read conversations:write domains:read domains:write'
        const row = (id: string, scopes: string) => ({ id, owner_id: 'o', name: null, scopes, token_hash: id, prefix: 'll_x', created_at: 1, revoked_at: null })
        await storage.db
          .insertInto('tokens')
          .values([
            row('tok_all', all),
            row('tok_narrow', 'links:read domains:read'),
            row('tok_reordered', 'domains:write links:read links:write conversations:read conversations:write domains:read'),
          ])
          .execute()
        // Up to 0012 only: later migrations (0019) widen all-scope tokens again.
        const { error } = await (await createMigrator(storage)).migrateTo('0012-create-sessions')
        assert.equal(error, undefined)
        const scopes = Object.fromEntries((await storage.db.selectFrom('tokens').select(['id', 'scopes']).execute()).map((t) => [t.id, t.scopes]))
        // 0010 gave it the webhook scopes already; 0012 adds tokens:write.
        assert.equal(scopes.tok_all, `${all} webhooks:read webhooks:write tokens:write`)
        assert.equal(scopes.tok_narrow, 'links:read domains:read')
        // 0010 matched the exact list, so this one never gained the webhook scopes.
        assert.equal(scopes.tok_reordered, 'domains:write links:read links:write conversations:read conversations:write domains:read tokens:write')
      } finally {
        await t.close()
      }
    })
  })
}
