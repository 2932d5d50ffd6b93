import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { CHROME, insertLink, linkRowBefore0023, visit, writeAndRollUp } from '../../test/factories.js'
import type { LinkRow } from '../links/links.table.js'
import { openTestStorage } from '../../test/storage.js'
import { migrateToLatest } from '../storage/migrate.js'
import type { Db } from '../storage/database.js'
import { DAY_MS, HOUR_MS } from '../shared/time.js'
import { createRollup } from './click-rollup.js'
import { addFacets, type Facets } from './stats.dimensions.js'
import { createStatsRepository } from './stats.repository.js'
import { createVisitWriter } from './visit-writer.js'
import { TopLinks, TOP_LINKS_KEPT } from './top-links.js'
import { rebuildWorkspaceRollups } from './workspace-rollup.js'

const at = (iso: string) => Date.parse(iso)
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'

/**
 * Checks the workspace's rows against its live links' rows: each hour's (and built day's) counters and
 * breakdowns are their sums, each kept link's count is its own, and no other link's count is above the
 * bound. Returns 1,000 × the hours + the days.
 */
/** Facets without the dimensions that hold no value (cities, without a city database): the same as none. */
const valued = (f: Facets) => Object.fromEntries(Object.entries(f).filter(([, values]) => Object.keys(values).length > 0))

async function assertSums(db: Db, ownerId: string): Promise<number> {
  const links = await db
    .selectFrom('link_click_rollups as r')
    .innerJoin('links as l', 'l.id', 'r.link_id')
    .selectAll('r')
    .where('l.owner_id', '=', ownerId)
    .where('l.deleted_at', 'is', null)
    .execute()
  const expected = new Map<number, { counts: number[]; facets: Facets; humans: Map<string, number> }>()
  for (const r of links) {
    const hour = Number(r.hour)
    const e = expected.get(hour) ?? { counts: [0, 0, 0, 0, 0], facets: {}, humans: new Map() }
    ;[r.total_clicks, r.human_clicks, r.bot_clicks, r.qr_scans, r.unique_visitors].forEach((n, i) => (e.counts[i] = (e.counts[i] as number) + Number(n)))
    if (r.facets !== null) addFacets(e.facets, JSON.parse(r.facets) as Facets)
    e.humans.set(r.link_id, Number(r.human_clicks))
    expected.set(hour, e)
  }
  const rows = await db.selectFrom('workspace_click_rollups').selectAll().where('owner_id', '=', ownerId).orderBy('hour').execute()
  assert.deepEqual(
    rows.map((r) => Number(r.hour)),
    [...expected.keys()].filter((h) => (expected.get(h)?.counts[0] ?? 0) > 0).sort((a, b) => a - b),
    'one row per hour with clicks',
  )
  for (const r of rows) {
    const e = expected.get(Number(r.hour)) as NonNullable<ReturnType<typeof expected.get>>
    const when = new Date(Number(r.hour)).toISOString()
    assert.deepEqual([r.total_clicks, r.human_clicks, r.bot_clicks, r.qr_scans, r.unique_visitors].map(Number), e.counts, when)
    assert.deepEqual(valued(r.facets === null ? {} : (JSON.parse(r.facets) as Facets)), valued(e.facets), when)
    const top = TopLinks.parse(r.top_links, r.top_bound)
    assert.ok(top.counts.size <= TOP_LINKS_KEPT)
    for (const [id, n] of top.counts) assert.equal(n, e.humans.get(id), `${when}: kept ${id}`)
    for (const [id, n] of e.humans) if (!top.counts.has(id)) assert.ok(n <= top.bound, `${when}: ${id} has ${n}, above the bound ${top.bound}`)
  }
  // The day rows built so far: each the sum of its hours, its kept links' counts those of the day.
  const days = await db.selectFrom('workspace_click_days').selectAll().where('owner_id', '=', ownerId).execute()
  for (const d of days) {
    const day = Number(d.day)
    const when = new Date(day).toISOString().slice(0, 10)
    const facets: Facets = {}
    const humans = new Map<string, number>()
    for (const r of links.filter((l) => Number(l.hour) >= day && Number(l.hour) < day + DAY_MS)) {
      if (r.facets !== null) addFacets(facets, JSON.parse(r.facets) as Facets)
      humans.set(r.link_id, (humans.get(r.link_id) ?? 0) + Number(r.human_clicks))
    }
    assert.deepEqual(valued(d.facets === null ? {} : (JSON.parse(d.facets) as Facets)), valued(facets), when)
    const top = TopLinks.parse(d.top_links, d.top_bound)
    for (const [id, n] of top.counts) assert.equal(n, humans.get(id), `${when}: kept ${id}`)
    for (const [id, n] of humans) if (!top.counts.has(id)) assert.ok(n <= top.bound, `${when}: ${id} has ${n}, above the bound ${top.bound}`)
  }
  return rows.length * 1000 + days.length
}

for (const backend of backends) {
  describe(`workspace rollups (${backend}, no HTTP)`, () => {
    test('the roll-up adds to its workspaces’ hours, the purge of a deleted link takes its hours away; a rebuild agrees', async () => {
      const t = await openTestStorage(backend)
      try {
        const db = t.storage.db
        const repo = createStatsRepository(db, t.storage.adapter)
        const rollup = createRollup(db, t.storage.adapter)
        const sink = createVisitWriter(repo, rollup, {
          shared: t.storage.adapter.sharedAcrossInstances,
          blockIntervalMs: 0,
          now: Date.now,
        })
        const mine = await Promise.all(Array.from({ length: 40 }, () => insertLink(db, { owner_id: 'w1' })))
        const theirs = await insertLink(db, { owner_id: 'w2' })
        const start = at('2026-05-04T10:00:00Z')
        // Three roll-ups over two hours: link i gets i + 1 visits, some QR scans, some bots, two browsers.
        for (let round = 0; round < 3; round++) {
          const visits = mine.flatMap((link, i) =>
            Array.from({ length: i + 1 }, (_, n) =>
              visit(link.id, start + ((n + round) % 2) * HOUR_MS + round * 60_000 + n * 1000, {
                ip: `198.51.100.${(n % 50) + 1}`,
                qr: n % 5 === 0,
                userAgent: n % 7 === 0 ? 'curl/8.0' : n % 2 === 0 ? FIREFOX : CHROME,
                referer: n % 3 === 0 ? 'https://t.co/x' : undefined,
              }),
            ),
          )
          await writeAndRollUp(sink, [...visits, visit(theirs.id, start + round * 1000)])
        }
        // The day is over: its visits went into its day rows too, and its compaction builds them again from the hours.
        assert.equal(await assertSums(db, 'w1'), 2001)
        assert.equal(await assertSums(db, 'w2'), 1001)
        await db.deleteFrom('workspace_click_days').execute()
        await db
          .updateTable('facets_compaction')
          .set({ days_before: at('2026-05-04T00:00:00Z') })
          .execute()
        await createRollup(db, t.storage.adapter).compactDays(Date.now())
        assert.equal(await assertSums(db, 'w1'), 2001)
        assert.equal(await assertSums(db, 'w2'), 1001)
        const first = (mine[0] as (typeof mine)[0]).id
        await writeAndRollUp(
          sink,
          Array.from({ length: 50 }, (_, n) => visit(first, start + 2 * HOUR_MS + n, { ip: `203.0.113.${n}` })),
        )
        assert.equal(await assertSums(db, 'w1'), 3001)
        const late = await db.selectFrom('workspace_click_days').select('top_links').where('owner_id', '=', 'w1').executeTakeFirstOrThrow()
        assert.ok(TopLinks.parse(late.top_links, 0).counts.has(first), 'the late visits make the first link one of the busiest of the day')
        const busiest = await db
          .selectFrom('workspace_click_rollups')
          .select(['top_links', 'top_bound'])
          .where('owner_id', '=', 'w1')
          .where('hour', '<', start + 2 * HOUR_MS)
          .execute()
        assert.ok(
          busiest.every((r) => Number(r.top_bound) > 0),
          'more links than an hour keeps: a bound',
        )

        // Deleted: its hours stay until the purge, which takes them away one batch at a time.
        for (const link of mine.slice(30)) await db.updateTable('links').set({ deleted_at: Date.now() }).where('id', '=', link.id).execute()
        for (const link of mine.slice(30)) while ((await repo.purgeLink(link.id, 1)) > 0);
        await assertSums(db, 'w1')
        assert.equal(
          (
            await db
              .selectFrom('link_click_rollups')
              .select('link_id')
              .where('link_id', '=', (mine[35] as (typeof mine)[0]).id)
              .execute()
          ).length,
          0,
        )
        const before = await db
          .selectFrom('workspace_click_rollups')
          .select(['owner_id', 'hour', 'human_clicks', 'facets'])
          .orderBy('owner_id')
          .orderBy('hour')
          .execute()
        await rebuildWorkspaceRollups(db)
        const rebuilt = await db
          .selectFrom('workspace_click_rollups')
          .select(['owner_id', 'hour', 'human_clicks', 'facets'])
          .orderBy('owner_id')
          .orderBy('hour')
          .execute()
        assert.deepEqual(
          rebuilt.map((r) => [r.owner_id, Number(r.hour), Number(r.human_clicks), JSON.parse(r.facets ?? '{}')]),
          before.map((r) => [r.owner_id, Number(r.hour), Number(r.human_clicks), JSON.parse(r.facets ?? '{}')]),
        )
        await assertSums(db, 'w1')
      } finally {
        await t.close()
      }
    })

    test('migration 0022 fills the workspace rows from the links’ rollups, deleted links not purged yet included', async () => {
      const t = await openTestStorage(backend, '0021-public-stats-and-missing-paths')
      try {
        const db = t.storage.db
        const hour = at('2026-04-01T08:00:00Z')
        // Rows as 0021 left them: none of the later columns.
        const insertOld = async (overrides: Partial<LinkRow>) => {
          const row = linkRowBefore0023(overrides)
          await db.insertInto('links').values(row).execute()
          return row
        }
        const links = await Promise.all(Array.from({ length: 35 }, (_, i) => insertOld({ owner_id: 'w1', deleted_at: i === 0 ? hour : null })))
        const other = await insertOld({ owner_id: 'w2' })
        const row = (linkId: string, h: number, human: number) => ({
          link_id: linkId,
          hour: h,
          total_clicks: human + 1,
          human_clicks: human,
          bot_clicks: 1,
          qr_scans: 0,
          unique_visitors: human,
          last_human_click_at: h + human,
          facets: JSON.stringify({ browser: { Firefox: human } }),
        })
        await db
          .insertInto('link_click_rollups')
          .values([...links.map((l, i) => row(l.id, hour, i + 1)), row(other.id, hour, 7), row(other.id, hour + HOUR_MS, 2)])
          .execute()
        // Days before 2026-04-02 have their day rows in link_click_facets: the workspace's are built too.
        await db
          .updateTable('facets_compaction')
          .set({ days_before: at('2026-04-02T00:00:00Z') })
          .execute()
        await migrateToLatest(t.storage)
        assert.equal(await assertSums(db, 'w2'), 2001)
        const rows = await db.selectFrom('workspace_click_rollups').selectAll().orderBy('owner_id').orderBy('hour').execute()
        assert.deepEqual(
          rows.map((r) => [
            r.owner_id,
            Number(r.hour),
            Number(r.total_clicks),
            Number(r.human_clicks),
            Number(r.last_human_click_at),
            JSON.parse(r.facets ?? ''),
          ]),
          [
            ['w1', hour, 630 + 35, 630, hour + 35, { browser: { Firefox: 630 } }],
            ['w2', hour, 8, 7, hour + 7, { browser: { Firefox: 7 } }],
            ['w2', hour + HOUR_MS, 3, 2, hour + HOUR_MS + 2, { browser: { Firefox: 2 } }],
          ],
        )
        const top = TopLinks.parse((rows[0] as (typeof rows)[0]).top_links, (rows[0] as (typeof rows)[0]).top_bound)
        assert.deepEqual(
          [...top.counts.values()].sort((a, b) => a - b),
          Array.from({ length: 32 }, (_, i) => i + 4),
        )
        assert.equal(top.bound, 3)
        const day = await db.selectFrom('workspace_click_days').selectAll().where('owner_id', '=', 'w1').executeTakeFirstOrThrow()
        assert.deepEqual([Number(day.day), JSON.parse(day.facets ?? ''), Number(day.top_bound)], [at('2026-04-01T00:00:00Z'), { browser: { Firefox: 630 } }, 3])
      } finally {
        await t.close()
      }
    })
  })
}
