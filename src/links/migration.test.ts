import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { backends } from '../../test/backends.js'
import { linkRowBefore0020, linkRowBefore0025, type LinkRowBefore0025 } from '../../test/factories.js'
import { openTestStorage } from '../../test/storage.js'
import { migrateToLatest } from '../storage/migrate.js'
import { trigramSchema } from '../storage/migrations/0020-link-list-analytics.js'
import type { LinkSort } from './link-list.js'
import { createLinksRepository } from './links.repository.js'

const HOUR = 3_600_000
const NEWEST: LinkSort = { column: 'created_at', descending: true }

for (const backend of backends) {
  describe(`migration 0020 (${backend})`, () => {
    test('links gain their human clicks and latest human click from the rollups, and links already there are searchable', async () => {
      const t = await openTestStorage(backend, '0019-accounts')
      const db = t.storage.db
      try {
        const [clicked, quiet, botsOnly] = [
          linkRowBefore0020({ owner_id: 'old', title: 'Autumn Catalogue' }),
          linkRowBefore0020({ owner_id: 'old', destination: 'https://quiet.example/page' }),
          linkRowBefore0020({ owner_id: 'old' }),
        ]
        await db.insertInto('links').values([clicked, quiet, botsOnly]).execute()
        await db
          .insertInto('link_tags')
          .values([
            { link_id: quiet.id, owner_id: 'old', tag: 'Evergreen' },
            { link_id: quiet.id, owner_id: 'old', tag: 'b' },
          ])
          .execute()
        const rollup = (link_id: string, hour: number, human: number, last: number | null, bot = 0) => ({
          link_id,
          hour,
          total_clicks: human + bot,
          human_clicks: human,
          bot_clicks: bot,
          qr_scans: 0,
          unique_visitors: human,
          last_human_click_at: last,
          facets: null,
        })
        await db
          .insertInto('link_click_rollups')
          .values([
            rollup(clicked.id, 10 * HOUR, 4, 10 * HOUR + 60_000),
            rollup(clicked.id, 12 * HOUR, 3, 12 * HOUR + 5),
            rollup(botsOnly.id, 10 * HOUR, 0, null, 9),
          ])
          .execute()

        await migrateToLatest(t.storage)
        const counters = await db.selectFrom('links').select(['id', 'clicks', 'last_clicked_at']).orderBy('id').execute()
        assert.deepEqual(
          counters.map((r) => [r.id, Number(r.clicks), r.last_clicked_at === null ? null : Number(r.last_clicked_at)]),
          [
            [clicked.id, 7, 12 * HOUR + 5],
            [quiet.id, 0, null],
            [botsOnly.id, 0, null],
          ],
        )

        // Found through the trigram index (SQLite: the FTS5 table, filled by the migration).
        assert.deepEqual(await t.storage.adapter.searchCandidates(db, 'old', 'CATALOG', 10), [clicked.id])
        assert.deepEqual(await t.storage.adapter.searchCandidates(db, 'old', 'greEN', 10), [quiet.id])
        const repo = createLinksRepository(db, t.storage.adapter)
        assert.deepEqual(
          (await repo.list('old', { filters: {}, q: 'quiet.example' }, NEWEST, 0, 10)).map((r) => r.id),
          [quiet.id],
        )
      } finally {
        await t.close()
      }
    })

    if (backend === 'postgres') {
      test('an extension that cannot be created leaves the migration’s transaction usable; pg_trgm is there and indexes the links', async () => {
        const t = await openTestStorage(backend)
        try {
          await t.storage.db.transaction().execute(async (trx) => {
            assert.equal(await trigramSchema(trx as unknown as Kysely<unknown>, 'no_such_extension_here'), undefined)
            assert.deepEqual((await sql<{ one: number }>`select 1 as one`.execute(trx)).rows, [{ one: 1 }])
          })
          assert.equal(typeof (await trigramSchema(t.storage.db as unknown as Kysely<unknown>)), 'string')
          const indexes = await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema()
            and indexname in ('links_search_trgm', 'link_tags_tag_trgm') order by 1`.execute(t.storage.db)
          assert.deepEqual(
            indexes.rows.map((r) => r.name),
            ['link_tags_tag_trgm', 'links_search_trgm'],
          )
        } finally {
          await t.close()
        }
      })
    }
  })
}

for (const backend of backends) {
  describe(`migration 0023 (${backend})`, () => {
    test('links titled before it were titled by their owners; untitled links have no title source', async () => {
      const t = await openTestStorage(backend, '0022-workspace-click-rollups')
      const db = t.storage.db
      try {
        // Rows as the releases before 0023 stored them: no title_source (nor later columns: 0024's preview, 0025's health).
        const before0023 = ({ title_source: _source, preview: _preview, ...row }: LinkRowBefore0025) => row
        const [titled, untitled] = [before0023(linkRowBefore0025({ owner_id: 'old', title: 'Spring' })), before0023(linkRowBefore0025({ owner_id: 'old' }))]
        await (db as unknown as Kysely<{ links: typeof titled }>).insertInto('links').values([titled, untitled]).execute()
        await migrateToLatest(t.storage)
        const rows = await db.selectFrom('links').select(['id', 'title', 'title_source']).where('owner_id', '=', 'old').execute()
        assert.deepEqual(Object.fromEntries(rows.map((r) => [r.id, [r.title, r.title_source]])), {
          [titled.id]: ['Spring', 'user'],
          [untitled.id]: [null, null],
        })
      } finally {
        await t.close()
      }
    })
  })
}

for (const backend of backends) {
  describe(`migration 0025 (${backend})`, () => {
    test('links stored before it are unknown and due at once; the lease table starts empty', async () => {
      const t = await openTestStorage(backend, '0024-link-previews')
      const db = t.storage.db
      try {
        const old = linkRowBefore0025({ owner_id: 'old' })
        await (db as unknown as Kysely<{ links: typeof old }>).insertInto('links').values(old).execute()
        await migrateToLatest(t.storage)
        const row = await db
          .selectFrom('links')
          .select(['health_status', 'health_http_status', 'health_checked_at', 'health_error', 'health_failures'])
          .where('id', '=', old.id)
          .executeTakeFirstOrThrow()
        assert.deepEqual({ ...row }, { health_status: 'unknown', health_http_status: null, health_checked_at: null, health_error: null, health_failures: 0 })
        assert.deepEqual(await db.selectFrom('health_leases').selectAll().execute(), [])
      } finally {
        await t.close()
      }
    })
  })
}
