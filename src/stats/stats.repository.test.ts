import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { insertLink, recordedClicks, visit, writeAndRollUp } from '../../test/factories.js'
import type { Visit } from './clicks.js'
import { createRollup } from './click-rollup.js'
import { openTestStorage, type TestStorage } from '../../test/storage.js'
import { DAY_MS, HOUR_MS } from '../shared/time.js'
import { createStatsRepository, type StatsRepository } from './stats.repository.js'
import { createVisitWriter } from './visit-writer.js'

const at = (iso: string) => Date.parse(iso)

for (const backend of backends) {
  describe(`stats repository (${backend}, no HTTP)`, () => {
    let t: TestStorage
    let repo: StatsRepository
    let write: (visits: Visit[]) => Promise<void>
    before(async () => {
      t = await openTestStorage(backend)
      repo = createStatsRepository(t.storage.db, t.storage.adapter)
      const sink = createVisitWriter(repo, createRollup(t.storage.db, t.storage.adapter), {
        shared: t.storage.adapter.sharedAcrossInstances,
        blockIntervalMs: 0,
        now: Date.now,
      })
      write = (visits) => writeAndRollUp(sink, visits)
    })
    after(() => t.close())

    test('a visitor seen in two batches of the same UTC day is one unique; on another day, one more', async () => {
      const link = await insertLink(t.storage.db)
      await write([visit(link.id, at('2026-02-03T08:00:00Z'), { ip: '198.51.100.1' })])
      await write([visit(link.id, at('2026-02-03T21:00:00Z'), { ip: '198.51.100.1' }), visit(link.id, at('2026-02-03T21:30:00Z'), { ip: '198.51.100.2' })])
      await write([visit(link.id, at('2026-02-04T01:00:00Z'), { ip: '198.51.100.1' })])
      const days = await repo.buckets(link.id, at('2026-02-03T00:00:00Z'), at('2026-02-05T00:00:00Z'), DAY_MS)
      assert.deepEqual(
        days.map((b) => [new Date(b.bucket).toISOString(), b.total, b.uniques]),
        [
          ['2026-02-03T00:00:00.000Z', 3, 2],
          ['2026-02-04T00:00:00.000Z', 1, 1],
        ],
      )
    })

    test('buckets sum hours into hours or days, within [from, to); humans, bots and QR scans apart', async () => {
      const link = await insertLink(t.storage.db)
      await write([
        visit(link.id, at('2026-03-01T10:05:00Z'), { qr: true }),
        visit(link.id, at('2026-03-01T10:55:00Z'), { ip: '203.0.113.5' }),
        visit(link.id, at('2026-03-01T11:00:00Z'), { head: true }),
        visit(link.id, at('2026-03-02T00:00:00Z'), { userAgent: undefined }),
        visit(link.id, at('2026-03-02T23:59:59Z')),
      ])
      const hours = await repo.buckets(link.id, at('2026-03-01T10:00:00Z'), at('2026-03-01T12:00:00Z'), HOUR_MS)
      assert.deepEqual(
        hours.sort((a, b) => a.bucket - b.bucket).map(({ bucket, ...counts }) => [new Date(bucket).toISOString(), counts]),
        [
          ['2026-03-01T10:00:00.000Z', { total: 2, human: 2, bot: 0, qr: 1, uniques: 2 }],
          ['2026-03-01T11:00:00.000Z', { total: 1, human: 0, bot: 1, qr: 0, uniques: 0 }],
        ],
      )
      // `to` is exclusive: the hour starting at `to` is left out.
      assert.equal((await repo.buckets(link.id, at('2026-03-01T10:00:00Z'), at('2026-03-01T11:00:00Z'), HOUR_MS)).length, 1)
      const days = await repo.buckets(link.id, at('2026-03-01T00:00:00Z'), at('2026-03-03T00:00:00Z'), DAY_MS)
      assert.deepEqual(
        days.sort((a, b) => a.bucket - b.bucket).map((b) => [new Date(b.bucket).toISOString(), b.total, b.human, b.bot]),
        [
          ['2026-03-01T00:00:00.000Z', 3, 2, 1],
          ['2026-03-02T00:00:00.000Z', 2, 1, 1],
        ],
      )
      assert.equal(await repo.lastHumanClickAt(link.id), at('2026-03-02T23:59:59Z'))
    })

    test('breakdowns join whole days and the hours at either end, counting humans only', async () => {
      const link = await insertLink(t.storage.db)
      await write([
        visit(link.id, at('2026-04-01T22:00:00Z'), { referer: 'https://t.co/x' }),
        visit(link.id, at('2026-04-02T12:00:00Z'), { referer: 'https://t.co/y' }),
        visit(link.id, at('2026-04-03T01:00:00Z')),
        visit(link.id, at('2026-04-03T05:00:00Z')),
        visit(link.id, at('2026-04-02T12:00:00Z'), { head: true, referer: 'https://bot.example/' }),
      ])
      // From 22:00 on the 1st to 02:00 on the 3rd: hours, one whole day, hours.
      const rows = await repo.breakdowns(link.id, at('2026-04-01T22:00:00Z'), at('2026-04-03T02:00:00Z'))
      const referrers = rows
        .filter((r) => r.dimension === 'referrer')
        .map((r) => [r.value, r.clicks])
        .sort()
      assert.deepEqual(referrers, [
        ['direct', 1],
        ['t.co', 2],
      ])
    })

    test('prune drops raw clicks before the bound and keeps rollups', async () => {
      const link = await insertLink(t.storage.db)
      await write([visit(link.id, at('2025-01-01T00:00:00Z')), visit(link.id, at('2026-05-01T00:00:00Z'))])
      await repo.prune(at('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:00Z'))
      assert.deepEqual(
        (await recordedClicks(t.storage.db, link.id)).map((c) => c.clickedAt),
        [at('2026-05-01T00:00:00Z')],
      )
      const all = await repo.buckets(link.id, at('2024-12-01T00:00:00Z'), at('2026-06-01T00:00:00Z'), DAY_MS)
      assert.equal(
        all.reduce((sum, b) => sum + b.total, 0),
        2,
      )
    })

    test('prune deletes expired blocks written after a newer one too (a late roll-up), walking the blocks in the order written', async () => {
      const link = await insertLink(t.storage.db)
      // Written in this order: a block to keep, then two old ones (a journal rolled up late).
      await write([visit(link.id, at('2026-05-01T00:00:00Z'))])
      await write([visit(link.id, at('2025-01-01T00:00:00Z'))])
      await write([visit(link.id, at('2025-02-01T00:00:00Z')), visit(link.id, at('2026-05-02T00:00:00Z'))])
      await repo.prune(at('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:00Z'))
      assert.deepEqual(
        (await recordedClicks(t.storage.db, link.id)).map((c) => new Date(c.clickedAt).toISOString()),
        ['2026-05-01T00:00:00.000Z', '2026-05-02T00:00:00.000Z'],
      )
    })
  })
}
