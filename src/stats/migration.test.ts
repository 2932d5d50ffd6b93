import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { backends } from '../../test/backends.js'
import { linkRowBefore0019, recordedClicks } from '../../test/factories.js'
import { migrateToLatest } from '../storage/migrate.js'
import type { TablesBefore } from '../storage/migrations/0013-click-journal.js'
import type { TablesBefore as TablesBefore0015 } from '../storage/migrations/0015-hour-facets-in-rollups.js'
import type { TablesBefore as TablesBefore0017 } from '../storage/migrations/0017-click-blocks-by-number.js'
import { openTestStorage } from '../../test/storage.js'
import { DAY_MS, HOUR_MS } from '../shared/time.js'
import { createRollup } from './click-rollup.js'
import { facetsCompactedBefore } from './rollup.repository.js'
import type { ProfileInput } from './stats.dimensions.js'
import { createStatsRepository } from './stats.repository.js'
import { BLOCK_FIELDS, encodeBlock } from './visit-columns.js'

for (const backend of backends) {
  describe(`migration 0013 (${backend})`, () => {
    test('raw clicks become click blocks (one per link and hour) and breakdown rows become facets, with nothing lost', async () => {
      const t = await openTestStorage(backend, '0012-create-sessions')
      const storage = t.storage
      try {
        const [a, b] = [linkRowBefore0019(), linkRowBefore0019()]
        await storage.db.insertInto('links').values([a, b]).execute()
        const old = storage.db as unknown as Kysely<TablesBefore>
        const start = Date.parse('2026-03-01T10:00:00Z')
        // 25,000 visits of `a` over three hours (more than one page of the copy, several in one millisecond), 3 of `b`.
        const clicks: TablesBefore['clicks'][] = Array.from({ length: 25_000 }, (_, i) => ({
          link_id: a.id,
          clicked_at: start + Math.floor(i / 3) * 1000,
          is_bot: i % 10 === 0 ? 1 : 0,
          is_qr: i % 4 === 0 ? 1 : 0,
          referrer: i % 2 === 0 ? null : 't.co',
          browser: 'Firefox',
          os: 'Linux',
          device: 'desktop',
          country: i % 3 === 0 ? 'DE' : null,
          visitor_key: `k${i % 100}`,
        }))
        clicks.push(...[0, 1, 2].map((i) => ({ ...(clicks[i] as TablesBefore['clicks']), link_id: b.id, clicked_at: start + i * HOUR_MS })))
        for (let i = 0; i < clicks.length; i += 1000)
          await old
            .insertInto('clicks')
            .values(clicks.slice(i, i + 1000))
            .execute()
        const breakdown = (dimension: string, value: string, n: number, granularity = 'hour') => ({
          link_id: a.id,
          granularity,
          period_start: start,
          dimension,
          value,
          clicks: n,
        })
        await old
          .insertInto('link_click_breakdowns')
          .values([
            breakdown('referrer', 'direct', 5),
            breakdown('referrer', 't.co', 7),
            breakdown('browser', 'Firefox', 12),
            breakdown('browser', 'Firefox', 12, 'day'),
          ])
          .execute()

        await migrateToLatest(storage)

        const exported = await recordedClicks(storage.db, a.id)
        assert.equal(exported.length, 25_000)
        // Visits of one millisecond have no order of their own: compared as sorted lists.
        const rows = (list: unknown[][]) => list.map((r) => JSON.stringify(r)).sort()
        assert.deepEqual(
          rows(exported.map((c) => [c.clickedAt, c.isBot, c.isQr, c.referrer, c.country, c.browser])),
          rows(clicks.slice(0, 25_000).map((c) => [c.clicked_at, c.is_bot === 1, c.is_qr === 1, c.referrer, c.country, c.browser])),
        )
        const blocks = await storage.db.selectFrom('click_blocks').select(['link_id', 'start_at', 'end_at', 'clicks']).orderBy('start_at').execute()
        assert.equal(blocks.filter((r) => r.link_id === a.id).length, 3, 'one block per hour')
        assert.equal(blocks.filter((r) => r.link_id === b.id).length, 3)
        assert.equal(
          blocks.reduce((sum, r) => sum + Number(r.clicks), 0),
          25_003,
        )
        const breakdowns = await createStatsRepository(storage.db, storage.adapter).breakdowns(a.id, start, start + HOUR_MS)
        // Dimensions added since read these visits as their missing value (readFacets).
        assert.deepEqual(breakdowns.map((r) => [r.dimension, r.value, r.clicks]).sort(), [
          ['browser', 'Firefox', 12],
          ['language', 'unknown', 12],
          ['referrer', 'direct', 5],
          ['referrer', 't.co', 7],
          ['utmCampaign', 'none', 12],
          ['utmMedium', 'none', 12],
          ['utmSource', 'none', 12],
        ])
        // The hour's facets row went on into its rollup row (migration 0015).
        const facets = await storage.db.selectFrom('link_click_facets').select(['granularity', 'counts']).execute()
        assert.deepEqual(
          facets.map((f) => [f.granularity, JSON.parse(f.counts)]),
          [['day', { browser: { Firefox: 12 } }]],
        )
        const hours = await storage.db.selectFrom('link_click_rollups').select('facets').where('facets', 'is not', null).execute()
        assert.deepEqual(
          hours.map((r) => JSON.parse(r.facets as string)),
          [{ browser: { Firefox: 12 }, referrer: { direct: 5, 't.co': 7 } }],
        )
      } finally {
        await t.close()
      }
    })
  })
  describe(`migration 0014 (${backend})`, () => {
    test('the compaction watermark starts at the latest day with a day row: that day is read from its hours, and those before it from their day rows', async () => {
      const t = await openTestStorage(backend, '0013-click-journal')
      const storage = t.storage
      try {
        const link = linkRowBefore0019()
        await storage.db.insertInto('links').values(link).execute()
        const [first, second] = [Date.parse('2026-03-01T00:00:00Z'), Date.parse('2026-03-02T00:00:00Z')]
        const facets = (granularity: 'hour' | 'day', period_start: number, n: number) => ({
          link_id: link.id,
          granularity,
          period_start,
          counts: JSON.stringify({ browser: { Firefox: n } }),
        })
        // As roll-ups left them: every day row the sum of its hours; the second day's still going on.
        await (storage.db as unknown as Kysely<TablesBefore0015>)
          .insertInto('link_click_facets')
          .values([
            facets('hour', first + HOUR_MS, 2),
            facets('hour', first + 5 * HOUR_MS, 3),
            facets('day', first, 5),
            facets('hour', second, 4),
            facets('day', second, 4),
          ])
          .execute()
        await migrateToLatest(storage)
        const row = await storage.db.selectFrom('facets_compaction').select(['id', 'days_before']).executeTakeFirstOrThrow()
        assert.deepEqual([row.id, Number(row.days_before)], [1, second])
        const breakdowns = await createStatsRepository(storage.db, storage.adapter).breakdowns(link.id, first, second + DAY_MS)
        assert.deepEqual(
          breakdowns.map((r) => [r.dimension, r.value, r.clicks]),
          [['browser', 'Firefox', 9]],
        )
      } finally {
        await t.close()
      }
    })

    test('on a database without breakdowns, the watermark starts at 0: every day is read from its hours until the first compaction', async () => {
      const t = await openTestStorage(backend)
      try {
        const row = await t.storage.db.selectFrom('facets_compaction').select('days_before').executeTakeFirstOrThrow()
        assert.equal(Number(row.days_before), 0)
      } finally {
        await t.close()
      }
    })
  })
  describe(`migration 0015 (${backend})`, () => {
    test("an hour's facets row moves into its rollup row (one made with zero clicks when missing); day rows stay; breakdowns read the same", async () => {
      const t = await openTestStorage(backend, '0014-compact-day-facets')
      const storage = t.storage
      try {
        const link = linkRowBefore0019()
        await storage.db.insertInto('links').values(link).execute()
        const old = storage.db as unknown as Kysely<TablesBefore0015>
        const day = Date.parse('2026-03-01T00:00:00Z')
        const counts = (n: number) => JSON.stringify({ browser: { Firefox: n }, country: { DE: n } })
        await old
          .insertInto('link_click_rollups')
          .values({ link_id: link.id, hour: day + HOUR_MS, total_clicks: 3, human_clicks: 2, bot_clicks: 1, qr_scans: 0, unique_visitors: 1 })
          .execute()
        await old
          .insertInto('link_click_facets')
          .values([
            { link_id: link.id, granularity: 'hour', period_start: day + HOUR_MS, counts: counts(2) },
            { link_id: link.id, granularity: 'hour', period_start: day + 2 * HOUR_MS, counts: counts(5) },
            { link_id: link.id, granularity: 'day', period_start: day, counts: counts(7) },
          ])
          .execute()
        const repo = createStatsRepository(storage.db, storage.adapter)
        await migrateToLatest(storage)

        const rollups = await storage.db.selectFrom('link_click_rollups').selectAll().where('link_id', '=', link.id).orderBy('hour').execute()
        assert.deepEqual(
          rollups.map((r) => [Number(r.hour) - day, Number(r.total_clicks), Number(r.human_clicks), r.facets === null ? null : JSON.parse(r.facets)]),
          [
            [HOUR_MS, 3, 2, { browser: { Firefox: 2 }, country: { DE: 2 } }],
            [2 * HOUR_MS, 0, 0, { browser: { Firefox: 5 }, country: { DE: 5 } }],
          ],
        )
        const facets = await storage.db.selectFrom('link_click_facets').select(['granularity', 'period_start']).execute()
        assert.deepEqual(
          facets.map((f) => [f.granularity, Number(f.period_start)]),
          [['day', day]],
        )
        // The day is not before the watermark (0014 found no day row): read from its hours, now in the rollup rows.
        assert.deepEqual(
          (await repo.breakdowns(link.id, day, day + DAY_MS)).map((r) => [r.dimension, r.value, r.clicks]),
          [
            ['browser', 'Firefox', 7],
            ['country', 'DE', 7],
          ],
        )
        // An instance of the older release, during a rolling upgrade, still writes an hour row of its own:
        // read beside the rollups' breakdowns, and built into the day's row with them.
        await old
          .insertInto('link_click_facets')
          .values({ link_id: link.id, granularity: 'hour', period_start: day + 2 * HOUR_MS, counts: counts(4) })
          .execute()
        const hours = async () => (await repo.breakdowns(link.id, day, day + 3 * HOUR_MS)).map((r) => [r.dimension, r.value, r.clicks])
        assert.deepEqual(await hours(), [
          ['browser', 'Firefox', 11],
          ['country', 'DE', 11],
        ])
        await createRollup(storage.db, storage.adapter).compactDays(day + DAY_MS + HOUR_MS)
        assert.equal(await facetsCompactedBefore(storage.db), day + DAY_MS)
        const [dayRow] = await storage.db.selectFrom('link_click_facets').select('counts').where('granularity', '=', 'day').execute()
        assert.deepEqual(JSON.parse(dayRow?.counts ?? 'null'), { browser: { Firefox: 11 }, country: { DE: 11 } })
        assert.deepEqual(
          (await repo.breakdowns(link.id, day, day + DAY_MS)).map((r) => [r.dimension, r.value, r.clicks]),
          await hours(),
        )
        const { rollups: count } = await storage.db.selectFrom('facets_compaction').select('rollups').executeTakeFirstOrThrow()
        assert.equal(Number(count), 0)
      } finally {
        await t.close()
      }
    })
  })
  describe(`migration 0017 (${backend})`, () => {
    test('click blocks are numbered in the order of their old ids, keep their visits, export the same, and new ones number on after them', async () => {
      const t = await openTestStorage(backend, '0016-click-journal-marks')
      const storage = t.storage
      try {
        const link = linkRowBefore0019()
        await storage.db.insertInto('links').values(link).execute()
        const hour = Date.parse('2026-03-01T10:00:00Z')
        // Ids in the order written; start times not (a stale journal rolled up late wrote an older hour last).
        const firefox: ProfileInput = { bot: false, qr: false, referrer: null, browser: 'Firefox', os: null, device: null, country: null }
        // A block of `visits` visits, a millisecond apart from `start`, as a roll-up writes it.
        const data = (start: number, visits: number) =>
          JSON.stringify(
            encodeBlock(
              Array.from({ length: visits * BLOCK_FIELDS }, (_, i) => (i % BLOCK_FIELDS === 0 ? start + i / BLOCK_FIELDS : 0)),
              [firefox],
            ),
          )
        const block = (id: string, start: number, visits: number) => ({
          id,
          link_id: link.id,
          start_at: start,
          end_at: start + visits - 1,
          clicks: visits,
          data: data(start, visits),
        })
        const old = storage.db as unknown as Kysely<TablesBefore0017>
        await old
          .insertInto('click_blocks')
          .values([block('blk_01A', hour, 2), block('blk_01B', hour + HOUR_MS, 3), block('blk_01C', hour - HOUR_MS, 1)])
          .execute()
        await migrateToLatest(storage)
        const rows = await storage.db.selectFrom('click_blocks').select(['id', 'start_at', 'clicks']).orderBy('id').execute()
        assert.deepEqual(
          rows.map((r) => [Number(r.start_at) - hour, Number(r.clicks)]),
          [
            [0, 2],
            [HOUR_MS, 3],
            [-HOUR_MS, 1],
          ],
        )
        assert.ok(rows.every((r) => Number.isInteger(Number(r.id))))
        assert.deepEqual(
          (await recordedClicks(storage.db, link.id)).map((c) => [c.clickedAt - hour, c.browser]),
          [
            [-HOUR_MS, 'Firefox'],
            [0, 'Firefox'],
            [1, 'Firefox'],
            [HOUR_MS, 'Firefox'],
            [HOUR_MS + 1, 'Firefox'],
            [HOUR_MS + 2, 'Firefox'],
          ],
        )
        const { id: next } = await storage.db
          .insertInto('click_blocks')
          .values({ link_id: link.id, start_at: hour, end_at: hour, clicks: 1, data: data(hour, 1) })
          .returning('id')
          .executeTakeFirstOrThrow()
        assert.ok(Number(next) > Math.max(...rows.map((r) => Number(r.id))))
        const indexes = await sql<{ name: string }>`${sql.raw(
          backend === 'sqlite'
            ? "select name from sqlite_master where type = 'index' and tbl_name = 'click_blocks'"
            : "select indexname as name from pg_indexes where tablename = 'click_blocks' and schemaname = current_schema()",
        )}`.execute(storage.db)
        assert.deepEqual(
          indexes.rows
            .map((r) => r.name)
            .filter((n) => !n.endsWith('_pkey'))
            .sort(),
          // The export's, and the compaction's partial index of the rows it has yet to merge (migration 0029).
          ['click_blocks_link_start', 'click_blocks_to_compact'],
        )
      } finally {
        await t.close()
      }
    })
  })
}
