import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.js'
import type { DomainsService } from '../domains/domains.service.js'
import type { Faults } from '../ops/faults.js'
import { systemTimers, type Clock, type Timers } from '../shared/clock.js'
import type { Db } from '../storage/database.js'
import { createMissingPathsRepository } from './missing-paths.repository.js'
import { createMissingPathsService } from './missing-paths.service.js'
import { createMissingPathTally } from './missing-paths.tally.js'

/**
 * Visits to missing paths, assembled for the container: the tally the redirect counts into, the
 * service the routes read through, and the writes of the tally every LINKLINE_CLICK_ROLLUP_INTERVAL_MS
 * (from `start` on) and at `close`. One write at a time; a failed one is put back and retried with the next.
 */
export function createMissingPaths(deps: {
  db: Db
  domains: DomainsService
  clock: Clock
  /** The bootstrap workspace sees the default domains' missing paths; rows go after the click retention; writes come as often as roll-ups. */
  config: Pick<Config, 'bootstrapOwner' | 'clickRetentionDays' | 'clickRollupIntervalMs'>
  logger: Pick<FastifyBaseLogger, 'warn'>
  faults: Pick<Faults, 'guard'>
  timers?: Timers
}) {
  const { config } = deps
  const tally = createMissingPathTally()
  const service = createMissingPathsService({
    repo: createMissingPathsRepository(deps.db),
    domains: deps.domains,
    clock: deps.clock,
    bootstrapWorkspace: config.bootstrapOwner,
    retentionDays: config.clickRetentionDays,
  })
  let writes: Promise<void> = Promise.resolve()
  let stop: (() => void) | undefined
  let failing = false

  /** Writes what the tally holds, after any write in flight; rejects when the write fails (the rows wait for the next). */
  function flush(): Promise<void> {
    const write = writes.then(async () => {
      const rows = tally.take()
      if (rows.length === 0) return
      try {
        await service.record(rows)
        failing = false
      } catch (error) {
        tally.putBack(rows)
        throw error
      }
    })
    writes = write.catch(() => {})
    return write
  }

  /** A background flush: its failure is logged when it starts (not at every retry). */
  const flushLogged = () =>
    flush().catch((error: unknown) => {
      if (!failing) deps.logger.warn({ err: error, waiting: tally.size, dropped: tally.dropped }, 'writing visits to missing paths failed; retried')
      failing = true
    })

  return {
    /** What the redirect calls for a human visit to a missing path. */
    count: tally.count,
    service,
    flush,
    start(): void {
      stop ??= (deps.timers ?? systemTimers).every(
        config.clickRollupIntervalMs,
        deps.faults.guard('timer', () => void flushLogged()),
      )
    },
    /** Stops the timer and writes what is left (once; a failure is logged, and those counts are lost). */
    async close(): Promise<void> {
      stop?.()
      stop = undefined
      await flushLogged()
    },
  }
}
export type MissingPaths = ReturnType<typeof createMissingPaths>
