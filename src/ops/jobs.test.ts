import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { pino } from 'pino'
import { createFaults } from './faults.js'
import type { Timers } from '../shared/clock.js'
import { createJobs, DOMAINS_REFRESH_MS, type JobsDeps } from './jobs.js'
import { createMetrics } from './metrics.js'
import { SEARCH_INDEX_INTERVAL_MS } from '../links/search-indexer.js'

/** Timers that fire only when a test says so, by period. */
function manualTimers() {
  const live = new Map<number, { ms: number; run: () => void }>()
  let next = 0
  const timers: Timers = {
    every: (ms, run) => {
      const id = next++
      live.set(id, { ms, run })
      return () => live.delete(id)
    },
  }
  return {
    timers,
    periods: () => [...live.values()].map((t) => t.ms).sort((a, b) => a - b),
    fire: (ms: number) => {
      for (const timer of live.values()) if (timer.ms === ms) timer.run()
    },
  }
}

const HOUR = 3_600_000
const flush = () => new Promise((resolve) => setImmediate(resolve))

function setup(overrides: Partial<JobsDeps> = {}) {
  const log: string[] = []
  const warnings: string[] = []
  const clock = manualTimers()
  const jobs = createJobs({
    clicks: { start: () => log.push('clicks started') },
    dispatcher: {
      start: () => log.push('dispatcher started'),
      stop: async () => {
        log.push('dispatcher stopped')
      },
    },
    purger: { kick: () => log.push('purge') },
    prunes: {
      'old clicks': async () => log.push('prune clicks'),
      'ended sessions': () => Promise.reject(new Error('disk full')),
    },
    logger: pino({ level: 'warn' }, { write: (line: string) => warnings.push((JSON.parse(line) as { msg: string }).msg) }),
    faults: createFaults({ logger: pino({ level: 'silent' }), metrics: createMetrics() }),
    timers: clock.timers,
    ...overrides,
  })
  return { jobs, log, warnings, clock }
}

describe('background jobs', () => {
  test('start sets the work going and purges at once; maintenance purges and prunes hourly, a failed prune is logged', async () => {
    const { jobs, log, warnings, clock } = setup()
    jobs.start()
    assert.deepEqual(log, ['clicks started', 'dispatcher started', 'purge'])
    assert.deepEqual(clock.periods(), [HOUR], 'no domain rounds unless asked for')
    clock.fire(HOUR)
    await flush()
    assert.deepEqual(log.slice(3), ['purge', 'prune clicks'])
    assert.deepEqual(warnings, ['pruning ended sessions failed; retried in an hour'])
    await jobs.stop()
    assert.deepEqual(clock.periods(), [], 'stop clears every timer')
  })

  test('the search index is written at start and every quarter of a second, and stopped before the dispatcher', async () => {
    const { jobs, log, clock } = setup({
      searchIndexer: {
        tick: () => log.push('index'),
        stop: async () => {
          log.push('indexer stopped')
        },
      },
    })
    jobs.start()
    assert.deepEqual(log, ['clicks started', 'dispatcher started', 'purge', 'index'])
    assert.deepEqual(clock.periods(), [SEARCH_INDEX_INTERVAL_MS, HOUR])
    clock.fire(SEARCH_INDEX_INTERVAL_MS)
    clock.fire(SEARCH_INDEX_INTERVAL_MS)
    await jobs.stop()
    assert.deepEqual(log.slice(4), ['index', 'index', 'indexer stopped', 'dispatcher stopped'])
  })

  test('domain checks run one round at a time, and stop waits for the one in flight before stopping the dispatcher', async () => {
    let rounds = 0
    let finish = () => {}
    const { jobs, log, clock } = setup({
      recheckDomains: {
        everyMs: 1000,
        run: () => {
          rounds++
          return new Promise<void>((resolve) => (finish = resolve)).then(() => log.push('check done'))
        },
      },
    })
    jobs.start()
    assert.deepEqual(clock.periods(), [1000, HOUR])
    clock.fire(1000)
    clock.fire(1000)
    assert.equal(rounds, 1, 'a slow round is not piled on')
    const stopped = jobs.stop()
    await flush()
    assert.ok(!log.includes('dispatcher stopped'), 'the dispatcher outlives the check in flight')
    finish()
    await stopped
    assert.deepEqual(log.slice(-2), ['check done', 'dispatcher stopped'])
  })

  test('a failed domain check is logged and the next period runs again', async () => {
    let rounds = 0
    const { jobs, warnings, clock } = setup({
      recheckDomains: {
        everyMs: 1000,
        run: () => {
          rounds++
          return Promise.reject(new Error('resolver down'))
        },
      },
    })
    jobs.start()
    clock.fire(1000)
    await flush()
    clock.fire(1000)
    await flush()
    assert.equal(rounds, 2)
    assert.deepEqual(warnings, ['checking pending domains failed; retried next period', 'checking pending domains failed; retried next period'])
    await jobs.stop()
  })

  test('shared instances reload the custom domains periodically; a round that throws is contained', async () => {
    let reloads = 0
    let kicks = 0
    const { jobs, clock } = setup({
      reloadDomains: async () => {
        reloads++
      },
      purger: {
        kick: () => {
          if (kicks++ > 0) throw new Error('thread gone')
        },
      },
    })
    jobs.start()
    assert.deepEqual(clock.periods(), [DOMAINS_REFRESH_MS, HOUR])
    clock.fire(DOMAINS_REFRESH_MS)
    clock.fire(DOMAINS_REFRESH_MS)
    assert.equal(reloads, 2)
    assert.doesNotThrow(() => clock.fire(HOUR))
    assert.equal(kicks, 2)
    await jobs.stop()
  })

  test('stop without start still stops the dispatcher (a CLI container closes it)', async () => {
    const { jobs, log } = setup()
    await jobs.stop()
    assert.deepEqual(log, ['dispatcher stopped'])
  })
})
