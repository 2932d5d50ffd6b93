import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { backends } from '../../test/backends.js'
import { insertLink, recordedClicks, visit } from '../../test/factories.js'
import { openTestStorage, type TestStorage } from '../../test/storage.js'
import { DAY_MS, HOUR_MS } from '../shared/time.js'
import type { ClickSink } from './clicks.js'
import { createRollup } from './click-rollup.js'
import { encodeVisits } from './visit-batch.js'
import { createStatsRepository, type StatsRepository } from './stats.repository.js'
import { createVisitWriter, STALE_JOURNAL_MS } from './visit-writer.js'

const at = (iso: string) => Date.parse(iso)

for (const backend of backends) {
  describe(`click journal and roll-up (${backend}, no HTTP)`, () => {
    let t: TestStorage
    let repo: StatsRepository
    let now = at('2026-06-01T12:00:00Z')
    /** A click writer as the writer thread builds it; several of them stand for several instances. */
    const writer = (): ClickSink =>
      createVisitWriter(repo, createRollup(t.storage.db, t.storage.adapter), {
        shared: t.storage.adapter.sharedAcrossInstances,
        blockIntervalMs: 0,
        now: () => now,
      })
    const journalRows = async () =>
      Number(
        (
          await t.storage.db
            .selectFrom('click_journal')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const total = async (linkId: string) => (await repo.buckets(linkId, 0, at('2030-01-01T00:00:00Z'), DAY_MS)).reduce((sum, b) => sum + b.total, 0)
    const count = async (table: 'click_blocks' | 'link_click_rollups' | 'link_click_facets', linkId: string) =>
      Number(
        (
          await t.storage.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('link_id', '=', linkId)
            .executeTakeFirstOrThrow()
        ).n,
      )
    before(async () => {
      t = await openTestStorage(backend)
      repo = createStatsRepository(t.storage.db, t.storage.adapter)
    })
    after(() => t.close())

    test('written visits wait in the journal, one row per batch, until the roll-up counts them and empties it', async () => {
      const link = await insertLink(t.storage.db)
      const sink = writer()
      await sink.write(encodeVisits([visit(link.id, now), visit(link.id, now + 1)]))
      await sink.write(encodeVisits([visit(link.id, now + 2)]))
      assert.equal(await journalRows(), 2)
      assert.equal(await total(link.id), 0, 'not in the statistics before the roll-up')
      await sink.rollUp()
      assert.equal(await journalRows(), 0)
      assert.equal(await total(link.id), 3)
      await sink.rollUp()
      assert.equal(await total(link.id), 3, 'a roll-up with nothing new adds nothing')
    })

    test('a flood on one link costs a handful of rows: one block and one rollup row (with its breakdowns) per hour (its day row comes once the day is over)', async () => {
      const link = await insertLink(t.storage.db)
      const sink = writer()
      const hour = at('2026-06-01T10:00:00Z')
      for (let batch = 0; batch < 5; batch++) {
        await sink.write(
          encodeVisits(
            Array.from({ length: 2000 }, (_, i) =>
              visit(link.id, hour + batch * 2000 + i, { ip: `10.0.${batch}.${i % 200}`, referer: `https://r${i % 7}.example/` }),
            ),
          ),
        )
      }
      await sink.rollUp()
      assert.deepEqual(
        {
          blocks: await count('click_blocks', link.id),
          rollups: await count('link_click_rollups', link.id),
          facets: await count('link_click_facets', link.id),
        },
        { blocks: 1, rollups: 1, facets: 0 },
      )
      const [bucket] = await repo.buckets(link.id, hour, hour + HOUR_MS, HOUR_MS)
      assert.deepEqual({ total: bucket?.total, uniques: bucket?.uniques }, { total: 10_000, uniques: 1000 })
      const referrers = (await repo.breakdowns(link.id, hour, hour + HOUR_MS)).filter((r) => r.dimension === 'referrer')
      assert.equal(referrers.length, 7)
      assert.equal(
        referrers.reduce((sum, r) => sum + r.clicks, 0),
        10_000,
      )
      const clicks = await recordedClicks(t.storage.db, link.id)
      assert.equal(clicks.length, 10_000)
      assert.ok(clicks.every((c, i) => i === 0 || c.clickedAt >= (clicks[i - 1] as { clickedAt: number }).clickedAt))
    })

    test('a visitor is one unique per link and day across roll-ups and across writers', async () => {
      const link = await insertLink(t.storage.db)
      const [a, b] = [writer(), writer()]
      for (const sink of [a, b, a]) {
        await sink.write(encodeVisits([visit(link.id, now, { ip: '198.51.100.7' })]))
        await sink.rollUp()
      }
      await b.write(encodeVisits([visit(link.id, now + DAY_MS, { ip: '198.51.100.7' })]))
      await b.rollUp()
      const days = await repo.buckets(link.id, 0, at('2030-01-01T00:00:00Z'), DAY_MS)
      assert.deepEqual(
        days.sort((x, y) => x.bucket - y.bucket).map((d) => [d.total, d.uniques]),
        [
          [3, 1],
          [1, 1],
        ],
      )
    })

    test(`a journal left by a writer that stopped is rolled up once: ${backend === 'sqlite' ? 'by the next writer at once (one server owns the file)' : `by another instance once it is ${STALE_JOURNAL_MS / 1000} s old`}`, async () => {
      const link = await insertLink(t.storage.db)
      const crashed = writer()
      await crashed.write(encodeVisits([visit(link.id, now), visit(link.id, now + 1)]))
      const next = writer()
      await next.rollUp()
      if (backend === 'postgres') {
        assert.equal(await total(link.id), 0, 'a live instance rolls up its own journal: not taken early')
        now += STALE_JOURNAL_MS + 1
        await next.rollUp()
      }
      assert.equal(await total(link.id), 2)
      assert.equal(await journalRows(), 0)
      // The writer that stopped comes back (it had not crashed after all): nothing is counted twice.
      await crashed.rollUp()
      assert.equal(await total(link.id), 2)
    })

    const marks = async () => (await t.storage.db.selectFrom('click_journal_marks').select('rolled_through').execute()).length

    test("a roll-up without click blocks counts the visits and keeps their rows, under the writer's mark; the next one with blocks writes one block per link and hour for both, counting nothing twice", async () => {
      const link = await insertLink(t.storage.db)
      const sink = writer()
      await sink.write(encodeVisits([visit(link.id, now), visit(link.id, now + 1, { ip: '198.51.100.9' })]))
      await sink.rollUp(false)
      assert.deepEqual(
        { total: await total(link.id), journal: await journalRows(), marks: await marks(), exported: (await recordedClicks(t.storage.db, link.id)).length },
        { total: 2, journal: 1, marks: 1, exported: 0 },
        'counted, not in the export yet',
      )
      await sink.write(encodeVisits([visit(link.id, now + 2)]))
      await sink.rollUp(false)
      assert.equal(await total(link.id), 3, 'only the new row counted')
      await sink.rollUp(true)
      assert.deepEqual(
        { total: await total(link.id), journal: await journalRows(), marks: await marks(), blocks: await count('click_blocks', link.id) },
        { total: 3, journal: 0, marks: 0, blocks: 1 },
      )
      assert.deepEqual(
        (await recordedClicks(t.storage.db, link.id)).map((c) => c.clickedAt),
        [now, now + 1, now + 2],
      )
      const [day] = await repo.buckets(link.id, 0, at('2030-01-01T00:00:00Z'), DAY_MS)
      assert.equal(day?.uniques, 2)
    })

    test(`rows counted but not in blocks when their writer stopped are put in blocks once and not counted again, ${backend === 'sqlite' ? 'by the next writer' : 'by another instance once stale'}; the rows after the mark are counted once`, async () => {
      const link = await insertLink(t.storage.db)
      const crashed = writer()
      await crashed.write(encodeVisits([visit(link.id, now), visit(link.id, now + 1)]))
      await crashed.rollUp(false)
      await crashed.write(encodeVisits([visit(link.id, now + 2)]))
      const next = writer()
      if (backend === 'postgres') {
        await next.rollUp()
        assert.deepEqual({ total: await total(link.id), journal: await journalRows() }, { total: 2, journal: 2 }, "a live instance's rows are not taken early")
        now += STALE_JOURNAL_MS + 1
      }
      await next.rollUp()
      assert.deepEqual(
        { total: await total(link.id), journal: await journalRows(), marks: await marks(), exported: (await recordedClicks(t.storage.db, link.id)).length },
        { total: 3, journal: 0, marks: 0, exported: 3 },
      )
      // The writer that stopped comes back: its rows are gone, so nothing is counted or exported twice.
      await crashed.rollUp()
      assert.deepEqual({ total: await total(link.id), exported: (await recordedClicks(t.storage.db, link.id)).length }, { total: 3, exported: 3 })
    })

    test('visits of a link deleted before the roll-up are dropped, and of one already purged; the others are counted', async () => {
      const [gone, purged, kept] = [await insertLink(t.storage.db), await insertLink(t.storage.db), await insertLink(t.storage.db)]
      const sink = writer()
      await sink.write(encodeVisits([visit(gone.id, now), visit(purged.id, now), visit(kept.id, now), visit(kept.id, now + 1)]))
      await t.storage.db.updateTable('links').set({ deleted_at: now }).where('id', '=', gone.id).execute()
      await t.storage.db.deleteFrom('links').where('id', '=', purged.id).execute()
      await sink.rollUp()
      assert.equal(await total(gone.id), 0)
      assert.equal(await count('click_blocks', gone.id), 0)
      assert.equal(await count('click_blocks', purged.id), 0)
      assert.equal(await total(kept.id), 2)
      assert.equal(await journalRows(), 0)
    })
    test("a day's breakdowns are hour rows until it is over; then its day row is built from them, and late visits add to both", async () => {
      const link = await insertLink(t.storage.db)
      const sink = writer()
      const day = at('2026-07-01T00:00:00Z')
      const dayRows = () =>
        t.storage.db
          .selectFrom('link_click_facets')
          .select(['period_start', 'counts'])
          .where('link_id', '=', link.id)
          .where('granularity', '=', 'day')
          .orderBy('period_start')
          .execute()
      const hourRows = () =>
        t.storage.db.selectFrom('link_click_rollups').select('hour').where('link_id', '=', link.id).where('facets', 'is not', null).execute()
      const referrers = async () =>
        Object.fromEntries((await repo.breakdowns(link.id, day, day + DAY_MS)).filter((r) => r.dimension === 'referrer').map((r) => [r.value, r.clicks]))
      const dayRow = async () => (await dayRows()).map((r) => [Number(r.period_start), (JSON.parse(r.counts) as { referrer: unknown }).referrer])
      const from = (site: string) => ({ referer: `https://${site}/` })

      now = at('2026-07-01T12:00:00Z')
      await sink.write(
        encodeVisits([visit(link.id, at('2026-07-01T10:00:00Z'), from('a.example')), visit(link.id, at('2026-07-01T11:00:00Z'), from('b.example'))]),
      )
      await sink.rollUp()
      assert.deepEqual(await dayRow(), [], 'no day row while the day goes on')
      assert.equal((await hourRows()).length, 2)
      assert.deepEqual(await referrers(), { 'a.example': 1, 'b.example': 1 }, 'the whole day, read from its hours')

      // Past midnight, a late flush brings a visit of the day before: the day is built from all its hours.
      now = at('2026-07-02T00:00:05Z')
      await sink.write(encodeVisits([visit(link.id, at('2026-07-01T23:59:59Z'), from('a.example'))]))
      await sink.rollUp()
      assert.deepEqual(await dayRow(), [[day, { 'a.example': 2, 'b.example': 1 }]])
      assert.deepEqual(await referrers(), { 'a.example': 2, 'b.example': 1 }, 'the whole day, read from its day row')

      // Later still, by another writer: added to the day row as well as to the hour.
      now = at('2026-07-02T09:00:00Z')
      const other = writer()
      await other.write(encodeVisits([visit(link.id, at('2026-07-01T23:59:59.500Z'), from('c.example'))]))
      await other.rollUp()
      assert.deepEqual(await dayRow(), [[day, { 'a.example': 2, 'b.example': 1, 'c.example': 1 }]])
      assert.deepEqual(await referrers(), { 'a.example': 2, 'b.example': 1, 'c.example': 1 })
      assert.deepEqual(
        await repo.breakdowns(link.id, day + 23 * HOUR_MS, day + DAY_MS),
        await repo.breakdowns(link.id, day + 23 * HOUR_MS, day + DAY_MS + HOUR_MS),
        'the hour rows hold the late visits too',
      )
      assert.equal(
        (await repo.breakdowns(link.id, day + 23 * HOUR_MS, day + DAY_MS)).find((r) => r.dimension === 'referrer' && r.value === 'c.example')?.clicks,
        1,
      )
    })
    test("a writer adds to the hour's breakdowns it remembers writing, and reads them back when another writer rolled up since", async () => {
      const link = await insertLink(t.storage.db)
      const [a, b] = [writer(), writer()]
      const hour = at('2026-09-01T10:00:00Z')
      now = hour + 30 * 60_000
      const sites = ['a', 'b', 'a', 'a', 'b', 'b', 'a']
      for (const [i, site] of sites.entries()) {
        const sink = site === 'a' ? a : b
        await sink.write(encodeVisits([visit(link.id, hour + i, { referer: `https://${site}${i % 2}.example/` })]))
        await sink.rollUp()
      }
      const referrers = Object.fromEntries(
        (await repo.breakdowns(link.id, hour, hour + HOUR_MS)).filter((r) => r.dimension === 'referrer').map((r) => [r.value, r.clicks]),
      )
      assert.deepEqual(referrers, { 'a0.example': 3, 'a1.example': 1, 'b1.example': 2, 'b0.example': 1 })
      assert.equal(await count('link_click_rollups', link.id), 1)
    })

    /** A link whose hour has one visit rolled up (so its writer remembers the hour's breakdowns), and its browsers then. */
    async function rolledUpOnce(iso: string) {
      const link = await insertLink(t.storage.db)
      const sink = writer()
      const hour = at(iso)
      now = hour + 30 * 60_000
      await sink.write(encodeVisits([visit(link.id, hour)]))
      await sink.rollUp()
      const browsers = async () =>
        (await repo.breakdowns(link.id, hour, hour + HOUR_MS)).filter((r) => r.dimension === 'browser').map((r) => [r.value, r.clicks])
      return { link, sink, hour, browsers }
    }

    test('a roll-up that fails after adding to the breakdowns in memory leaves no trace: the next one adds to what the database holds', async () => {
      const { link, sink, hour, browsers } = await rolledUpOnce('2026-09-02T10:00:00Z')
      // The click blocks are written after the breakdowns: a failure there rolls the whole roll-up back.
      const db = t.storage.db
      if (backend === 'sqlite') await sql`create trigger fail_blocks before insert on click_blocks begin select raise(abort, 'injected'); end`.execute(db)
      else {
        await sql`create function fail_blocks() returns trigger language plpgsql as $$ begin raise exception 'injected'; end $$`.execute(db)
        await sql`create trigger fail_blocks before insert on click_blocks for each row execute function fail_blocks()`.execute(db)
      }
      await sink.write(encodeVisits([visit(link.id, hour + 1)]))
      await assert.rejects(sink.rollUp(), /injected/)
      assert.deepEqual(await browsers(), [['Chrome', 1]])
      await sql`drop trigger fail_blocks${sql.raw(backend === 'sqlite' ? '' : ' on click_blocks')}`.execute(db)
      await sink.rollUp()
      assert.deepEqual(await browsers(), [['Chrome', 2]])
      assert.equal(await total(link.id), 2)
    })

    if (backend === 'postgres') {
      test('a roll-up attempt aborted by a serialization failure and run again counts each visit once in the breakdowns it remembers', async () => {
        const { link, sink, hour, browsers } = await rolledUpOnce('2026-09-03T10:00:00Z')
        // The first click block written after this fails as a conflict would (inTransaction runs the roll-up
        // again); a sequence, which no rollback undoes, lets the second attempt through.
        const db = t.storage.db
        await sql`create sequence conflict_once`.execute(db)
        await sql`create function conflict_once() returns trigger language plpgsql as $$ begin if nextval('conflict_once') = 1 then raise exception 'injected conflict' using errcode = '40001'; end if; return new; end $$`.execute(
          db,
        )
        await sql`create trigger conflict_once before insert on click_blocks for each row execute function conflict_once()`.execute(db)
        try {
          await sink.write(encodeVisits([visit(link.id, hour + 1)]))
          await sink.rollUp()
          assert.equal(Number((await sql<{ n: string }>`select last_value as n from conflict_once`.execute(db)).rows[0]?.n), 2, 'the roll-up ran twice')
          assert.deepEqual(await browsers(), [['Chrome', 2]])
          // The next roll-up adds to what was committed, not to what the aborted attempt added in memory.
          await sink.write(encodeVisits([visit(link.id, hour + 2)]))
          await sink.rollUp()
          assert.deepEqual(await browsers(), [['Chrome', 3]])
        } finally {
          await sql`drop trigger conflict_once on click_blocks`.execute(db)
        }
      })
    }

    test('one roll-up of a link visited in 1,000 different hours: full chunks of every statement, nothing lost', async () => {
      const link = await insertLink(t.storage.db)
      const sink = writer()
      const first = at('2026-08-01T00:00:00Z')
      now = first + 1000 * HOUR_MS
      await sink.write(encodeVisits(Array.from({ length: 1000 }, (_, i) => visit(link.id, first + i * HOUR_MS, { ip: `10.1.${i >> 8}.${i & 255}` }))))
      await sink.rollUp()
      const hours = await repo.buckets(link.id, first, now, HOUR_MS)
      assert.deepEqual(
        { hours: hours.length, total: hours.reduce((sum, b) => sum + b.total, 0), uniques: hours.reduce((sum, b) => sum + b.uniques, 0) },
        { hours: 1000, total: 1000, uniques: 1000 },
      )
      // A block per hour, though the writer compacts them after its roll-up (ADR 0014): every visit is there once.
      assert.equal((await recordedClicks(t.storage.db, link.id)).length, 1000)
      const browsers = (await repo.breakdowns(link.id, first, now)).filter((r) => r.dimension === 'browser')
      assert.deepEqual(
        browsers.map((r) => [r.value, r.clicks]),
        [['Chrome', 1000]],
      )
    })
  })
}
