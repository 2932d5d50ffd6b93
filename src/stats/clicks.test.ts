import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import { pino } from 'pino'
import { visit } from '../../test/factories.js'
import { createMetrics } from '../ops/metrics.js'
import { ClickBuffer, type ClickSink } from './clicks.js'
import { visitCount } from './visit-batch.js'

/** A sink that remembers its calls in order: 'w<visits>' per batch written, 'r' per roll-up. */
function recordingSink(): ClickSink & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    write: async (batch) => void calls.push(`w${visitCount(batch)}`),
    rollUp: async () => void calls.push('r'),
  }
}

test('the roll-up interval counts from the first visit written after a quiet spell, not from the last roll-up', async () => {
  const ROLLUP_MS = 1500
  const sink = recordingSink()
  const buffer = new ClickBuffer({
    sink,
    metrics: createMetrics(),
    logger: pino({ level: 'silent' }),
    capacity: 1000,
    batchSize: 1000,
    intervalMs: 20,
    rollupIntervalMs: ROLLUP_MS,
    rollupVisits: 1000,
  })
  buffer.start()
  try {
    // The start's roll-up (of what a crashed process may have left), then a spell longer than the interval.
    while (!sink.calls.includes('r')) await sleep(10)
    await sleep(ROLLUP_MS + 200)
    buffer.record(visit('lnk_1', Date.now()))
    while (!sink.calls.includes('w1')) await sleep(10)
    const firstWritten = Date.now()
    // Before: the interval had long passed since the last roll-up, and this visit was rolled up alone at once.
    await sleep(200)
    assert.deepEqual(sink.calls, ['r', 'w1'], 'written, and waiting for the roll-up')
    buffer.record(visit('lnk_1', Date.now()))
    while (sink.calls.length < 4) await sleep(10)
    assert.deepEqual(sink.calls, ['r', 'w1', 'w1', 'r'], 'both visits in one roll-up')
    // Roughly: this test may notice the first write late on a busy machine, never early.
    assert.ok(Date.now() - firstWritten >= (ROLLUP_MS * 2) / 3, 'about an interval after the first was written')
  } finally {
    await buffer.close()
  }
})
