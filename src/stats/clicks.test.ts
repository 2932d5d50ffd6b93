import assert from 'node:assert/strict'
import { test } from 'node:test'
import { pino } from 'pino'
import { visit } from '../../test/factories.js'
import { createMetrics } from '../ops/metrics.js'
import { createManualClock } from '../shared/clock.js'
import { ClickBuffer, type ClickSink } from './clicks.js'
import { visitCount } from './visit-batch.js'

/** A sink that remembers its calls in order: 'w<visits>' per batch written, 'r' per roll-up, 'R' per roll-up with click blocks. */
function recordingSink(): ClickSink & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    write: async (batch) => void calls.push(`w${visitCount(batch)}`),
    rollUp: async (blocks = true) => void calls.push(blocks ? 'R' : 'r'),
    upkeep: async () => {},
  }
}

/**
 * A clock that moves only when the test steps it, firing the buffer's timer at each of its ticks on
 * the way and letting the work a tick starts settle (the sink answers at once), so no test sleeps.
 */
function steppedClock() {
  const clock = createManualClock()
  const timers = new Set<{ every: number; next: number; tick: () => void }>()
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve))
  return {
    now: clock.now,
    every(ms: number, tick: () => void) {
      const timer = { every: ms, next: clock.now() + ms, tick }
      timers.add(timer)
      return () => void timers.delete(timer)
    },
    sleep: async (ms: number) => void clock.advance(ms),
    /** Moves time `ms` forward, tick by tick. */
    async step(ms: number): Promise<void> {
      const end = clock.now() + ms
      for (;;) {
        const next = Math.min(...[...timers].map((t) => t.next))
        if (!(next <= end)) break
        clock.set(next)
        for (const t of timers) {
          if (t.next !== next) continue
          t.next += t.every
          t.tick()
        }
        await settle()
      }
      clock.set(end)
      await settle()
    },
  }
}

const FLUSH_MS = 20
const bufferOptions = { logger: pino({ level: 'silent' }), capacity: 1000, batchSize: 1000, intervalMs: FLUSH_MS, rollupVisits: 1000, blockVisits: 1000 }

/** Steps the clock one flush interval at a time until `done`; returns how long that took. */
async function stepUntil(clock: ReturnType<typeof steppedClock>, done: () => boolean | Promise<boolean>): Promise<number> {
  const from = clock.now()
  for (let i = 0; !(await done()); i++) {
    assert.ok(i < 10_000, 'never happened')
    await clock.step(FLUSH_MS)
  }
  return clock.now() - from
}

test('the roll-up interval counts from the first visit written after a quiet spell, not from the last roll-up', async () => {
  const ROLLUP_MS = 1500
  const sink = recordingSink()
  const clock = steppedClock()
  const buffer = new ClickBuffer({ ...bufferOptions, sink, clock, metrics: createMetrics(), rollupIntervalMs: ROLLUP_MS, blockIntervalMs: ROLLUP_MS })
  buffer.start()
  try {
    // The start's roll-up (of what a crashed process may have left) on the first tick, then a spell longer than the interval.
    await clock.step(FLUSH_MS)
    assert.deepEqual(sink.calls, ['R'])
    await clock.step(ROLLUP_MS + 200)
    buffer.record(visit('lnk_1', clock.now()))
    await clock.step(FLUSH_MS)
    assert.deepEqual(sink.calls, ['R', 'w1'], 'written at the next tick')
    const firstWritten = clock.now()
    // Before: the interval had long passed since the last roll-up, and this visit was rolled up alone at once.
    await clock.step(200)
    assert.deepEqual(sink.calls, ['R', 'w1'], 'written, and waiting for the roll-up')
    buffer.record(visit('lnk_1', clock.now()))
    await stepUntil(clock, () => sink.calls.length === 4)
    assert.deepEqual(sink.calls, ['R', 'w1', 'w1', 'R'], 'both visits in one roll-up')
    assert.equal(clock.now() - firstWritten, ROLLUP_MS, 'an interval after the first was written')
  } finally {
    await buffer.close()
  }
})

const blocksPending = async (metrics: ReturnType<typeof createMetrics>) =>
  Number(/^linkline_click_blocks_pending (\d+)$/m.exec(await metrics.registry.metrics())?.[1])

test('while visits keep coming, roll-ups count them and their click blocks wait for the block interval; once the visits stop, the roll-up writes the blocks too', async () => {
  // Quiet after 200 ms without a write: far more than the 30 ms between the test's visits.
  const [ROLLUP_MS, BLOCK_MS] = [400, 1600]
  const sink = recordingSink()
  const metrics = createMetrics()
  const clock = steppedClock()
  const buffer = new ClickBuffer({ ...bufferOptions, sink, metrics, clock, rollupIntervalMs: ROLLUP_MS, blockIntervalMs: BLOCK_MS })
  buffer.start()
  const rollUps = () => sink.calls.filter((c) => c === 'r' || c === 'R')
  try {
    await clock.step(FLUSH_MS)
    assert.deepEqual(sink.calls, ['R'])
    // A visit every 30 ms: a batch written at the flush interval's next tick.
    let firstWritten: number | undefined
    let pendingSeen = 0
    while (rollUps().length < 2 || rollUps().at(-1) === 'r') {
      buffer.record(visit('lnk_1', clock.now()))
      await clock.step(30)
      firstWritten ??= clock.now() - 10
      if (rollUps().length === 2 && pendingSeen === 0) pendingSeen = await blocksPending(metrics)
    }
    assert.deepEqual(rollUps(), ['R', 'r', 'r', 'r', 'R'], 'counted without blocks while the visits came, every roll-up interval')
    assert.ok(pendingSeen > 0, 'counted visits wait for their click blocks')
    // The roll-up that writes the blocks runs at the first tick after the block interval, within a visit's step.
    const elapsed = clock.now() - (firstWritten as number)
    assert.ok(elapsed >= BLOCK_MS && elapsed < BLOCK_MS + 30, `blocks a block interval after the first visit was written (${elapsed} ms)`)
    await stepUntil(clock, async () => (await blocksPending(metrics)) === 0 && buffer.size === 0)
    assert.equal(rollUps().at(-1), 'R')

    // A burst after a quiet spell: its one roll-up writes its blocks, instead of a second pass over its links later.
    await clock.step(ROLLUP_MS)
    const from = sink.calls.length
    buffer.record(visit('lnk_1', clock.now()))
    await clock.step(ROLLUP_MS + ROLLUP_MS / 2)
    assert.deepEqual(sink.calls.slice(from), ['w1', 'R'])
  } finally {
    await buffer.close()
  }
})

test('counted while visits were being written, then no more visits: the blocks come in a roll-up of their own at the block interval; a flush writes them at once', async () => {
  const BLOCK_MS = 900
  const sink = recordingSink()
  const metrics = createMetrics()
  const clock = steppedClock()
  // A roll-up per visit written (the visit count's trigger), right after its write: never quiet.
  const buffer = new ClickBuffer({ ...bufferOptions, rollupVisits: 1, sink, metrics, clock, rollupIntervalMs: 60_000, blockIntervalMs: BLOCK_MS })
  buffer.start()
  try {
    await clock.step(FLUSH_MS)
    buffer.record(visit('lnk_1', clock.now()))
    await clock.step(FLUSH_MS)
    assert.deepEqual(sink.calls, ['R', 'w1', 'r'], 'written, then counted at once')
    const written = clock.now()
    assert.equal(await blocksPending(metrics), 1)
    await stepUntil(clock, () => sink.calls.length === 4)
    assert.deepEqual(sink.calls, ['R', 'w1', 'r', 'R'], 'a roll-up with nothing new to count')
    assert.equal(clock.now() - written, BLOCK_MS, 'a block interval after the visit was written')
    assert.equal(await blocksPending(metrics), 0)
    buffer.record(visit('lnk_1', clock.now()))
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
    upkeep: async () => {},
  }
  const clock = steppedClock()
  const buffer = new ClickBuffer({ ...bufferOptions, sink: failing, clock, metrics: createMetrics(), rollupIntervalMs: 1000, blockIntervalMs: 1000 })
  for (let i = 0; i < 5; i++) buffer.record(visit('lnk_1', clock.now()))
  assert.equal(await buffer.close(), 5)
  assert.deepEqual({ size: buffer.size, unwritten: buffer.unwritten }, { size: 0, unwritten: 5 })
})
