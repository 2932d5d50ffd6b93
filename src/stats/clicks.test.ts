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

test('click blocks come with the roll-up due once the block interval has passed since the first visit waiting for them, then in a roll-up of their own; a flush writes them at once', async () => {
  const [ROLLUP_MS, BLOCK_MS] = [200, 1200]
  const sink = recordingSink()
  const metrics = createMetrics()
  const pending = async () => Number(/^linkline_click_blocks_pending (\d+)$/m.exec(await metrics.registry.metrics())?.[1])
  const buffer = new ClickBuffer({ ...bufferOptions, sink, metrics, rollupIntervalMs: ROLLUP_MS, blockIntervalMs: BLOCK_MS })
  buffer.start()
  try {
    while (!sink.calls.includes('R')) await sleep(10)
    buffer.record(visit('lnk_1', Date.now()))
    while (!sink.calls.includes('w1')) await sleep(10)
    const firstWritten = Date.now()
    while (!sink.calls.includes('r')) await sleep(10)
    assert.deepEqual(sink.calls, ['R', 'w1', 'r'], 'counted, without blocks')
    assert.equal(await pending(), 1, 'the visit waits for its click block')
    buffer.record(visit('lnk_1', Date.now()))
    while (sink.calls.filter((c) => c === 'R').length < 2) await sleep(10)
    assert.deepEqual(
      sink.calls,
      ['R', 'w1', 'r', 'w1', 'r', 'R'],
      'each visit counted a roll-up interval after its write, then both in blocks, in a roll-up with nothing new to count',
    )
    // Roughly: this test may notice the roll-up late on a busy machine, never early.
    assert.ok(Date.now() - firstWritten >= (BLOCK_MS * 2) / 3, 'about a block interval after the first was written')
    assert.equal(await pending(), 0)
    buffer.record(visit('lnk_1', Date.now()))
    await buffer.flush()
    assert.deepEqual(sink.calls.slice(6), ['w1', 'R'], 'a flush writes the blocks too')
  } finally {
    await buffer.close()
  }
})
