import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { linkRowBefore0019 } from '../../test/factories.js'
import { UNCHECKED } from '../links/link-writes.js'
import { openTestStorage } from '../../test/storage.js'
import { migrateToLatest } from '../storage/migrate.js'
import { hashToken } from '../tokens/tokens.service.js'

/** Every scope of the release before accounts, in the order it wrote them. */
const SCOPES_BEFORE = 'links:read links:write conversations:read conversations:write domains:read domains:write tokens:write webhooks:read webhooks:write'
const NEW_SCOPES = 'members:read members:write audit:read'
const NO_CREATOR = { created_by_type: null, created_by_id: null, created_by_label: null }

for (const backend of backends) {
  describe(`migration 0019 (${backend})`, () => {
    test('owners become workspaces of the same id; rows keep their owner and values; all-scope tokens gain the new scopes; token sessions survive', async () => {
      const t = await openTestStorage(backend, '0018-domain-claims-per-owner')
      const db = t.storage.db
      let storageOpen = true
      let s: TestServer | undefined
      try {
        // A database as the release before accounts left it: two owners with a bit of everything,
        // one owner known only by a conversation and one only by a token.
        const now = Date.now()
        const secrets = { all: 'll_everyScopeOfItsTime', session: 'session-value-of-the-old-release-0123456789' }
        const token = (id: string, owner: string, scopes: string, name: string | null = null) => ({
          id,
          owner_id: owner,
          name,
          scopes,
          token_hash: hashToken(`ll_${id}`),
          prefix: 'll_old',
          created_at: 1000,
          revoked_at: null,
        })
        await db
          .insertInto('tokens')
          .values([
            { ...token('tok_all', 'alice', SCOPES_BEFORE, 'bootstrap'), token_hash: hashToken(secrets.all) },
            token('tok_narrow', 'alice', 'links:read webhooks:read'),
            token('tok_almost', 'bob', SCOPES_BEFORE.replace(' tokens:write', '')),
            token('tok_dave', 'dave', 'links:read'),
          ])
          .execute()
        await db
          .insertInto('sessions')
          .values({ id: 'ses_old', session_hash: hashToken(secrets.session), token_id: 'tok_all', created_at: now - 2 * 3_600_000, last_used_at: now - 60_000 })
          .execute()
        await db
          .insertInto('links')
          .values([
            linkRowBefore0019({ owner_id: 'alice', title: 'alice one' }),
            linkRowBefore0019({ owner_id: 'alice', password_hash: 'scrypt$16384$8$1$salt$hash' }),
            linkRowBefore0019({ owner_id: 'bob', expires_at: 2000, max_clicks: 5 }),
          ])
          .execute()
        const domain = (name: string, owner: string) => ({
          name,
          owner_id: owner,
          created_at: 1000,
          status: 'verified' as const,
          verification_token: null,
          verified_at: 1000,
          last_checked_at: null,
          renewed_at: 1000,
        })
        await db
          .insertInto('domains')
          .values([domain('alice.example', 'alice'), domain('bob.example', 'bob')])
          .execute()
        const conversation = (id: string, owner: string) => ({
          id,
          owner_id: owner,
          contact_id: `${id}-contact`,
          group_id: null,
          link_id: null,
          pinned_message_id: null,
          is_pinned: 1,
          is_muted: 0,
          last_active_at: 1500,
          last_opened_at: null,
          created_at: 1000,
          archived_at: null,
          activity_at: 1500,
        })
        await db
          .insertInto('conversations')
          .values([conversation('conv_a', 'alice'), conversation('conv_b', 'bob'), conversation('conv_c', 'carol')])
          .execute()
        const webhook = (id: string, owner: string) => ({
          id,
          owner_id: owner,
          url: `https://${owner}.example/hook`,
          events: 'link.created',
          wants_clicks: 0,
          description: null,
          enabled: 1,
          disabled_reason: null,
          // Stored in plain text, as releases without a key did: the server seals it when it starts.
          secret: `plain:whsec_${id}AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
          last_success_at: null,
          created_at: 1000,
          updated_at: 1000,
        })
        await db
          .insertInto('webhooks')
          .values([webhook('whk_a', 'alice'), webhook('whk_b', 'bob')])
          .execute()

        const read = async () => ({
          tokens: await db.selectFrom('tokens').selectAll().orderBy('id').execute(),
          sessions: await db.selectFrom('sessions').selectAll().orderBy('id').execute(),
          links: await db.selectFrom('links').selectAll().orderBy('id').execute(),
          domains: await db.selectFrom('domains').selectAll().orderBy('name').execute(),
          conversations: await db.selectFrom('conversations').selectAll().orderBy('id').execute(),
          webhooks: await db.selectFrom('webhooks').selectAll().orderBy('id').execute(),
        })
        const before = await read()
        await migrateToLatest(t.storage)
        const after = await read()

        const workspaces = await db.selectFrom('workspaces').selectAll().orderBy('id').execute()
        assert.deepEqual(
          workspaces.map((w) => ({ id: w.id, name: w.name })),
          ['alice', 'bob', 'carol', 'dave'].map((id) => ({ id, name: id })),
        )
        assert.ok(workspaces.every((w) => Number.isFinite(Number(w.created_at))))
        assert.deepEqual(await db.selectFrom('users').selectAll().execute(), [])
        assert.deepEqual(await db.selectFrom('memberships').selectAll().execute(), [])

        // Every row as it was, with the new columns empty; only the all-scope token's scopes grow.
        const newScopes: Record<string, string> = { tok_all: `${SCOPES_BEFORE} ${NEW_SCOPES}` }
        assert.deepEqual(
          after.tokens,
          // 0027: no token expires.
          before.tokens.map((row) => ({ ...row, scopes: newScopes[row.id] ?? row.scopes, user_id: null, last_used_at: null, expires_at: null, ...NO_CREATOR })),
        )
        assert.deepEqual(
          after.sessions,
          before.sessions.map((row) => ({ ...row, user_id: null, workspace_id: null })),
        )
        assert.deepEqual(after.sessions[0]?.token_id, 'tok_all')
        assert.deepEqual(
          after.links,
          // Later migrations' columns at their defaults too (0020: click counters from the rollups, none here; 0021: statistics
          // not public; 0023: a title there was its owner's; 0024: no preview; 0025: not checked yet).
          before.links.map((row) => ({
            ...row,
            ...NO_CREATOR,
            clicks: 0,
            last_clicked_at: null,
            public_stats: 0,
            title_source: row.title === null ? null : 'user',
            preview: null,
            ...UNCHECKED,
          })),
        )
        assert.deepEqual(
          after.domains,
          before.domains.map((row) => ({ ...row, ...NO_CREATOR })),
        )
        assert.deepEqual(
          after.webhooks,
          // 0026: one event per delivery, as before.
          before.webhooks.map((row) => ({ ...row, ...NO_CREATOR, batch_max_events: null, batch_max_wait_ms: null })),
        )
        assert.deepEqual(after.conversations, before.conversations)

        // A server on the migrated database: the old token and its session act as before, with the new scopes.
        await t.storage.close()
        storageOpen = false
        s = await startTestServer({ backend, database: t.database })
        const links = await s.request('GET', '/v1/links', { token: secrets.all })
        assert.equal(links.status, 200, links.text)
        assert.deepEqual(
          links.body.data.map((l: { id: string; createdBy: unknown }) => [l.id, l.createdBy]).sort(),
          before.links
            .filter((l) => l.owner_id === 'alice')
            .map((l) => [l.id, null])
            .sort(),
        )
        assert.equal((await s.request('GET', '/v1/members', { token: secrets.all })).status, 200, 'all scopes still means all of them')
        assert.equal((await s.request('GET', '/v1/members', { token: 'll_tok_narrow' })).status, 403)
        assert.equal((await s.request('GET', '/v1/links', { token: 'll_tok_narrow' })).status, 200)
        const session = await s.request('GET', '/v1/sessions/current', { token: null, headers: { cookie: `linkline_session=${secrets.session}` } })
        assert.equal(session.status, 200, session.text)
        assert.deepEqual(
          { ...session.body.data, scopes: session.body.data.scopes.join(' ') },
          { ownerId: 'alice', scopes: `${SCOPES_BEFORE} ${NEW_SCOPES}`, tokenId: 'tok_all', userId: null, via: 'session' },
        )
      } finally {
        await s?.close()
        if (storageOpen) await t.close()
        else await t.database.drop()
      }
    })
  })
}
