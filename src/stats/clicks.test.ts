import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import { pino } from 'pino'
import { visit } from '../../test/factories.js'
import { createMetrics } from '../ops/metrics.js'
import { ClickBuffer, type ClickSink } from './clicks.js'
import { visitCount } from './visit-batch.js'

/** A sink that remembers its calls in order: 'w<visits>' per batch written, 'r' per roll-up, 'R' per roll-up with click blocks. */
function recordingSink(): ClickSink & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    write: async (batch) => void calls.push(`w${visitCount(batch)}`),
    rollUp: async (blocks = true) => void calls.push(blocks ? 'R' : 'r'),
    adoptStale: async () => {},
  }
}

const bufferOptions = { logger: pino({ level: 'silent' }), capacity: 1000, batchSize: 1000, intervalMs: 20, rollupVisits: 1000, blockVisits: 1000 }

test('the roll-up interval counts from the first visit written after a quiet spell, not from the last roll-up', async () => {
  const ROLLUP_MS = 1500
  const sink = recordingSink()
  const buffer = new ClickBuffer({
    ...bufferOptions,
    sink,
    metrics: createMetrics(),
    rollupIntervalMs: ROLLUP_MS,
    blockIntervalMs: ROLLUP_MS,
  })
  buffer.start()
  try {
    // The start's roll-up (of what a crashed process may have left), then a spell longer than the interval.
    while (!sink.calls.includes('R')) await sleep(10)
    await sleep(ROLLUP_MS + 200)
    buffer.record(visit('lnk_1', Date.now()))
    while (!sink.calls.includes('w1')) await sleep(10)
    const firstWritten = Date.now()
    // Before: the interval had long passed since the last roll-up, and this visit was rolled up alone at once.
    await sleep(200)
    assert.deepEqual(sink.calls, ['R', 'w1'], 'written, and waiting for the roll-up')
    buffer.record(visit('lnk_1', Date.now()))
    while (sink.calls.length < 4) await sleep(10)
    assert.deepEqual(sink.calls, ['R', 'w1', 'w1', 'R'], 'both visits in one roll-up')
    // Roughly: this test may notice the first write late on a busy machine, never early.
    assert.ok(Date.now() - firstWritten >= (ROLLUP_MS * 2) / 3, 'about an interval after the first was written')
  } finally {
    await buffer.close()
  }
})

const blocksPending = async (metrics: ReturnType<typeof createMetrics>) =>
  Number(/^linkline_click_blocks_pending (\d+)$/m.exec(await metrics.registry.metrics())?.[1])

test('while visits keep coming, roll-ups count them and their click blocks wait for the block interval; once the visits stop, the roll-up writes the blocks too', async () => {
  // Quiet after 200 ms without a write: far more than the test's visits leave between them, even on a busy machine.
  const [ROLLUP_MS, BLOCK_MS] = [400, 1600]
  const sink = recordingSink()
  const metrics = createMetrics()
  const buffer = new ClickBuffer({ ...bufferOptions, sink, metrics, rollupIntervalMs: ROLLUP_MS, blockIntervalMs: BLOCK_MS })
  buffer.start()
  const rollUps = () => sink.calls.filter((c) => c === 'r' || c === 'R')
  try {
    while (!sink.calls.includes('R')) await sleep(10)
    // A visit every 30 ms: a batch written every flush interval (20 ms).
    let firstWritten: number | undefined
    let pendingSeen = 0
    while (rollUps().length < 2 || rollUps().at(-1) === 'r') {
      buffer.record(visit('lnk_1', Date.now()))
      await sleep(30)
      firstWritten ??= Date.now()
      if (rollUps().length === 2 && pendingSeen === 0) pendingSeen = await blocksPending(metrics)
    }
    const elapsed = Date.now() - (firstWritten as number)
    assert.ok(rollUps().filter((c) => c === 'r').length >= 2, `counted without blocks while the visits came: ${rollUps().join(' ')}`)
    assert.ok(pendingSeen > 0, 'counted visits wait for their click blocks')
    // Roughly: this test may notice the roll-up late on a busy machine, never early.
    assert.ok(elapsed >= (BLOCK_MS * 2) / 3, `blocks about a block interval after the first visit was written (${elapsed} ms)`)
    while ((await blocksPending(metrics)) > 0 || buffer.size > 0) await sleep(20)
    assert.equal(rollUps().at(-1), 'R')

    // A burst after a quiet spell: its one roll-up writes its blocks, instead of a second pass over its links later.
    await sleep(ROLLUP_MS)
    const from = sink.calls.length
    buffer.record(visit('lnk_1', Date.now()))
    while (sink.calls.length < from + 2) await sleep(10)
    await sleep(ROLLUP_MS / 2)
    assert.deepEqual(sink.calls.slice(from), ['w1', 'R'])
  } finally {
    await buffer.close()
  }
})

test('counted while visits were being written, then no more visits: the blocks come in a roll-up of their own at the block interval; a flush writes them at once', async () => {
  const BLOCK_MS = 900
  const sink = recordingSink()
  const metrics = createMetrics()
  // A roll-up per visit written (the visit count's trigger), right after its write: never quiet.
  const buffer = new ClickBuffer({ ...bufferOptions, rollupVisits: 1, sink, metrics, rollupIntervalMs: 60_000, blockIntervalMs: BLOCK_MS })
  buffer.start()
  try {
    while (!sink.calls.includes('R')) await sleep(10)
    buffer.record(visit('lnk_1', Date.now()))
    while (!sink.calls.includes('w1')) await sleep(10)
    const written = Date.now()
    while (!sink.calls.includes('r')) await sleep(10)
    assert.equal(await blocksPending(metrics), 1)
    while (sink.calls.filter((c) => c === 'R').length < 2) await sleep(10)
    assert.deepEqual(sink.calls, ['R', 'w1', 'r', 'R'], 'a roll-up with nothing new to count')
    assert.ok(Date.now() - written >= (BLOCK_MS * 2) / 3, 'about a block interval after the visit was written')
    assert.equal(await blocksPending(metrics), 0)
    buffer.record(visit('lnk_1', Date.now()))
    await buffer.flush()
    assert.equal(sink.calls.at(-1), 'R', 'a flush writes the blocks too')
    assert.equal(await blocksPending(metrics), 0)
  } finally {
    await buffer.close()
  }
})

test('visits dropped at close still count as unwritten: the shutdown line that comes after the drop says how many', async () => {
  const failing: ClickSink = {
    write: async () => {
      throw new Error('injected: the store is locked')
    },
    rollUp: async () => {},
    adoptStale: async () => {},
  }
  const buffer = new ClickBuffer({ ...bufferOptions, sink: failing, metrics: createMetrics(), rollupIntervalMs: 1000, blockIntervalMs: 1000 })
  for (let i = 0; i < 5; i++) buffer.record(visit('lnk_1', Date.now()))
  assert.equal(await buffer.close(), 5)
  assert.deepEqual({ size: buffer.size, unwritten: buffer.unwritten }, { size: 0, unwritten: 5 })
})
