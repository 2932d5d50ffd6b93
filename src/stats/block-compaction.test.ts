import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { CHROME, insertLink, principal, visit } from '../../test/factories.js'
import { openTestStorage, type TestStorage } from '../../test/storage.js'
import type { LinksService } from '../links/links.service.js'
import { DAY_MS, HOUR_MS } from '../shared/time.js'
import { inTransaction } from '../storage/transaction.js'
import { COMPACT_AFTER_MS, replace } from './block-compaction.js'
import { createRollup } from './click-rollup.js'
import type { ClickSink } from './clicks.js'
import { createStatsRepository, type ExportedClick, type StatsRepository } from './stats.repository.js'
import { createStatsService } from './stats.service.js'
import { encodeVisits } from './visit-batch.js'
import { createVisitWriter } from './visit-writer.js'

const at = (iso: string) => Date.parse(iso)
const SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1'
const BOT = 'Googlebot/2.1 (+http://www.google.com/bot.html)'

for (const backend of backends) {
  describe(`click block compaction (${backend})`, () => {
    let t: TestStorage
    let repo: StatsRepository
    let now = at('2026-06-01T09:00:00Z')
    const owner = principal()
    /** The writer's clock stays at the start of the visits' day: it compacts nothing of its own accord. */
    const writer = (day: number): ClickSink =>
      createVisitWriter(repo, createRollup(t.storage.db, t.storage.adapter), {
        shared: t.storage.adapter.sharedAcrossInstances,
        blockIntervalMs: 0,
        now: () => day,
      })
    const service = () =>
      createStatsService({
        repo,
        links: { get: async (_p: unknown, id: string) => ({ id }) } as unknown as LinksService,
        clock: { now: () => now } as never,
        retentionDays: 90,
        freshen: async () => {},
      })
    const exportAll = async (linkId: string, budget?: number): Promise<ExportedClick[]> => {
      const out: ExportedClick[] = []
      for await (const c of await service().exportClicks(owner, linkId, {}, budget)) out.push(c)
      return out
    }
    const rows = async (linkId: string) =>
      (
        await t.storage.db
          .selectFrom('click_blocks')
          .select(['start_at', 'end_at', 'clicks', 'packed'])
          .where('link_id', '=', linkId)
          .orderBy('start_at')
          .execute()
      ).map((r) => ({ startAt: Number(r.start_at), endAt: Number(r.end_at), clicks: Number(r.clicks), packed: r.packed !== null }))
    const compactAll = async () => {
      for (let i = 0; !(await repo.compactBlocks(now, 0)); i++) assert.ok(i < 1000, 'the compaction never finished')
    }

    /** Visits of three hours in several roll-ups each (blocks of 30 s), varied profiles, some sharing a millisecond across blocks. */
    async function record(linkId: string, day: number): Promise<number> {
      const sink = writer(day)
      let n = 0
      for (let hour = 0; hour < 3; hour++) {
        for (let part = 0; part < 4; part++) {
          const base = day + (9 + hour) * HOUR_MS + part * 15 * 60_000
          const visits = Array.from({ length: 25 }, (_, i) =>
            visit(linkId, base + i * 1000 + (i % 5 === 0 ? 0 : 7), {
              userAgent: [CHROME, SAFARI, BOT][i % 3],
              referer: i % 4 === 0 ? undefined : `https://r${i % 6}.example/path`,
              country: ['FR', 'DE', undefined, 'JP'][i % 4],
              qr: i % 7 === 0,
              ip: `198.51.100.${i}`,
            }),
          )
          // The same millisecond as the last visit of the part before: in another block, of the hour before for a part 0.
          if (hour > 0 || part > 0) visits.push(visit(linkId, base - 15 * 60_000 + 24 * 1000 + 7, { userAgent: SAFARI, referer: 'https://late.example/' }))
          n += visits.length
          await sink.write(encodeVisits(visits))
          await sink.rollUp(true)
        }
      }
      now = day + 13 * HOUR_MS
      return n
    }

    before(async () => {
      t = await openTestStorage(backend)
      repo = createStatsRepository(t.storage.db, t.storage.adapter)
    })
    after(() => t.close())

    test('export, compact, export: the same visits, from one row per link and hour, then one per day after a week', async () => {
      const link = await insertLink(t.storage.db)
      const day = at('2026-06-01T00:00:00Z')
      const recorded = await record(link.id, day)
      const before = await exportAll(link.id)
      assert.equal(before.length, recorded)
      assert.ok(before.every((c, i) => i === 0 || (before[i - 1] as ExportedClick).clickedAt <= c.clickedAt))
      assert.equal((await rows(link.id)).length, 14, 'a block per roll-up and hour')

      await compactAll()
      const hourly = await rows(link.id)
      assert.deepEqual(
        hourly.map((r) => [Math.floor(r.startAt / HOUR_MS) * HOUR_MS, r.packed]),
        [9, 10, 11].map((h) => [day + h * HOUR_MS, true]),
      )
      assert.equal(
        hourly.reduce((sum, r) => sum + r.clicks, 0),
        recorded,
      )
      assert.deepEqual(await exportAll(link.id), before)
      assert.deepEqual(await exportAll(link.id, 10), before, 'pages of any size')

      now = day + 9 * DAY_MS
      await compactAll()
      const daily = await rows(link.id)
      assert.equal(daily.length, 1)
      assert.equal(daily[0]?.clicks, recorded)
      assert.deepEqual(await exportAll(link.id), before)
      // The statistics' split of an hour reads it from the day's row.
      const hour = day + 10 * HOUR_MS
      assert.deepEqual(
        await repo.hourClicks(link.id, hour),
        before.filter((c) => c.clickedAt >= hour && c.clickedAt < hour + HOUR_MS),
      )
    })

    test('a compaction that fails before its commit leaves the blocks as they were; run again, it compacts them once', async () => {
      const link = await insertLink(t.storage.db)
      const day = at('2026-06-20T00:00:00Z')
      await record(link.id, day)
      const before = await exportAll(link.id)
      const blocks = await rows(link.id)
      await assert.rejects(
        inTransaction(t.storage.db, async (trx) => {
          await replace(trx, link.id, day + 9 * HOUR_MS, day + 10 * HOUR_MS, 1)
          throw new Error('the process died')
        }),
        /the process died/,
      )
      assert.deepEqual(await rows(link.id), blocks)
      // Two compactions at once (two instances on PostgreSQL): each row replaced once.
      await Promise.all([compactAll(), compactAll()])
      assert.equal((await rows(link.id)).length, 3)
      assert.deepEqual(await exportAll(link.id), before)
    })

    test('an export under way while the blocks are compacted gives every visit once', async () => {
      const link = await insertLink(t.storage.db)
      const day = at('2026-07-01T00:00:00Z')
      await record(link.id, day)
      const before = await exportAll(link.id)
      const got: ExportedClick[] = []
      const stream = await service().exportClicks(owner, link.id, {}, 10)
      for await (const c of stream) {
        got.push(c)
        if (got.length === 40) {
          await compactAll()
        }
      }
      assert.ok((await rows(link.id)).every((r) => r.packed))
      assert.deepEqual(got, before)
    })

    test('retention and the purge of a deleted link remove compacted rows', async () => {
      const kept = await insertLink(t.storage.db)
      const gone = await insertLink(t.storage.db)
      const day = at('2026-08-01T00:00:00Z')
      await record(kept.id, day)
      await record(gone.id, day)
      await compactAll()
      assert.equal((await rows(gone.id)).length, 3)
      await t.storage.db.updateTable('links').set({ deleted_at: now }).where('id', '=', gone.id).execute()
      while ((await repo.purgeLink(gone.id, 2)) > 0);
      assert.deepEqual(await rows(gone.id), [])

      const dayRow = day + 10 * DAY_MS
      now = dayRow
      await compactAll()
      assert.equal((await rows(kept.id)).length, 1)
      await repo.prune(day + 11 * HOUR_MS, 0)
      assert.equal((await rows(kept.id)).length, 1, 'a day row stays while its newest visit is retained')
      await repo.prune(day + DAY_MS, 0)
      assert.deepEqual(await rows(kept.id), [])
    })

    test('a writer without visits to roll up compacts the hours that closed since, in its upkeep', async () => {
      const link = await insertLink(t.storage.db)
      const hour = at('2026-09-01T09:00:00Z')
      let clock = hour
      const sink = createVisitWriter(repo, createRollup(t.storage.db, t.storage.adapter), {
        shared: t.storage.adapter.sharedAcrossInstances,
        blockIntervalMs: 0,
        now: () => clock,
      })
      for (let minute = 0; minute < 3; minute++) {
        clock = hour + minute * 60_000
        await sink.write(encodeVisits([visit(link.id, clock)]))
        await sink.rollUp(true)
      }
      const before = await exportAll(link.id)
      clock = hour + HOUR_MS + COMPACT_AFTER_MS - 1
      await sink.upkeep()
      assert.deepEqual(
        (await rows(link.id)).map((r) => r.packed),
        [false, false, false],
        'the hour has not been over for long enough',
      )

      clock = hour + HOUR_MS + COMPACT_AFTER_MS
      // A bounded step per call (the timer's): the other tests' hours may come first.
      for (let i = 0; (await rows(link.id)).length > 1; i++) {
        assert.ok(i < 20, 'upkeep never compacted the closed hour')
        await sink.upkeep()
      }
      assert.deepEqual(await rows(link.id), [{ startAt: hour, endAt: hour + 2 * 60_000, clicks: 3, packed: true }])
      assert.deepEqual(await exportAll(link.id), before)
    })
  })
}
