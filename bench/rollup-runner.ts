import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRollup } from '../src/stats/click-rollup.js'
import { createStatsRepository } from '../src/stats/stats.repository.js'
import { encodeVisits, newBatchSlot } from '../src/stats/visit-batch.js'
import { createVisitWriter } from '../src/stats/visit-writer.js'
import { openStorage } from '../src/storage/database.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { browserUa } from './redirect.bench.js'
import { insertLinks, linkRow, redirectLinks, SMALL_OWNER } from './seed.js'

/**
 * One measurement of the click writer without HTTP, in this process (run by rollup.bench.ts, one child
 * process per measurement): `links` links on a fresh SQLite file, then `rollups` times `visits` visits
 * spread over them in rotation (each link keeps its User-Agent, as in the redirect bench), appended in
 * batches of 50,000 and rolled up, with the click blocks every `blocksEvery` roll-ups (and the last).
 * Prints the CPU µs per visit of each round's appends and roll-up (process CPU time: garbage collection
 * on V8's helper threads included).
 * Usage: node dist/bench/rollup-runner.js <links> <visits per roll-up> <roll-ups> [blocksEvery, default 1]
 */
const [links, visits, rollups, blocksEvery = 1] = process.argv.slice(2).map(Number) as [number, number, number, number?]
const BATCH = 50_000
const dir = mkdtempSync(join(tmpdir(), 'linkline-rollup-'))
const storage = openStorage({ databaseUrl: `sqlite:${join(dir, 'rollup.db')}`, databasePoolSize: 1, databaseStatementTimeoutMs: 60_000 })
try {
  await migrateToLatest(storage)
  const seeded = redirectLinks(links)
  await insertLinks(storage.db, links, (i) => {
    const link = seeded[i] as (typeof seeded)[number]
    return linkRow(SMALL_OWNER, link.path, link.destination, null, i)
  })
  const ids = (await storage.db.selectFrom('links').select('id').execute()).map((r) => r.id)
  // One batch slot per link, as each link's redirect target carries one in the server.
  const slots = ids.map(() => newBatchSlot())
  // Visits at 50,000 a second from the start of an hour, the roll-up's clock just after the last one.
  const start = Date.UTC(2026, 10, 25, 10)
  let now = start
  const writer = createVisitWriter(createStatsRepository(storage.db, storage.adapter), createRollup(storage.db, storage.adapter), {
    shared: false,
    blockIntervalMs: 0,
    now: () => now,
  })
  const rounds: { append: number; rollUp: number }[] = []
  let sent = 0
  const micros = (from: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(from)
    return (used.user + used.system) / visits
  }
  for (let round = 0; round < rollups; round++) {
    const batches = []
    for (let b = 0; b < visits; b += BATCH) {
      batches.push(
        encodeVisits(
          Array.from({ length: Math.min(BATCH, visits - b) }, () => {
            const i = sent++
            const link = i % links
            return {
              linkId: ids[link] as string,
              at: start + Math.floor(i / 50),
              qr: false,
              head: false,
              ip: '203.0.113.7',
              userAgent: browserUa(link),
              referer: undefined,
              country: undefined,
              slot: slots[link],
            }
          }),
        ),
      )
    }
    now = start + Math.floor(sent / 50) + 1
    const appending = process.cpuUsage()
    for (const batch of batches) await writer.write(batch)
    const append = micros(appending)
    const rolling = process.cpuUsage()
    await writer.rollUp((round + 1) % blocksEvery === 0 || round === rollups - 1)
    rounds.push({ append, rollUp: micros(rolling) })
  }
  console.log(JSON.stringify(rounds))
} finally {
  await storage.close()
  rmSync(dir, { recursive: true, force: true })
}
