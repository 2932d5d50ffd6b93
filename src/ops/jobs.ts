import type { FastifyBaseLogger } from 'fastify'
import { systemTimers, type Timers } from '../shared/clock.js'
import { SEARCH_INDEX_INTERVAL_MS, type SearchIndexer } from '../links/search-indexer.js'
import type { Faults } from './faults.js'

const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000
/** With several instances, custom domains are also reloaded on this period, should a broadcast be missed. */
export const DOMAINS_REFRESH_MS = 10_000

type Prune = () => Promise<unknown>

export interface JobsDeps {
  /** The click flusher (stats/clicks.ts), which keeps its own timers once started. */
  clicks: { start(): void }
  /** Visits to missing paths (stats/missing-paths.ts), written on their own timer once started and for the last time at stop. */
  missingPaths?: { start(): void; close(): Promise<void> }
  /** The webhook dispatcher (webhooks/dispatcher.ts), which polls the outbox once started. */
  dispatcher: { start(): void; stop(): Promise<void> }
  /** The purge of deleted links, run in the click writer thread (links/links.purger.ts). */
  purger: { kick(): void }
  /** SQLite's search index of links (links/search-indexer.ts), written in batches; absent on PostgreSQL. */
  searchIndexer?: Pick<SearchIndexer, 'tick' | 'stop'>
  /** The hourly prunes, by what they remove (for the log line when one fails). */
  prunes: Readonly<Record<string, Prune>>
  /** Rechecks custom domains awaiting verification; absent when verification is off. */
  recheckDomains?: { run: () => Promise<unknown>; everyMs: number }
  /** Reloads the custom domains; set where several instances share the database. */
  reloadDomains?: () => Promise<unknown>
  logger: Pick<FastifyBaseLogger, 'warn'>
  faults: Pick<Faults, 'guard'>
  timers?: Timers
}

/**
 * A server's background work: the click flusher, the webhook dispatcher, the hourly maintenance,
 * SQLite's search index of links, and the custom-domain rounds. The container builds the objects;
 * `start()` sets them going and `stop()` ends what it started, waiting for a domain check and a search
 * index batch in flight. The CLI never starts them.
 */
export function createJobs(deps: JobsDeps) {
  const { logger, faults } = deps
  const timers = deps.timers ?? systemTimers
  const stops: (() => void)[] = []
  let domainsChecking: Promise<unknown> | undefined
  const every = (ms: number, run: () => void) => stops.push(timers.every(ms, faults.guard('timer', run)))

  function maintain(): void {
    deps.purger.kick()
    for (const [what, prune] of Object.entries(deps.prunes)) {
      prune().catch((error: unknown) => logger.warn({ err: error }, `pruning ${what} failed; retried in an hour`))
    }
  }

  return {
    start(): void {
      deps.clicks.start()
      deps.missingPaths?.start()
      deps.dispatcher.start()
      // Deletes a crash or a stop interrupted resume now; the hourly kick catches any a failed round left.
      deps.purger.kick()
      every(MAINTENANCE_INTERVAL_MS, maintain)
      const indexer = deps.searchIndexer
      if (indexer) {
        // Links noted before a crash or a stop are indexed now.
        indexer.tick()
        every(SEARCH_INDEX_INTERVAL_MS, indexer.tick)
      }
      const recheck = deps.recheckDomains
      if (recheck) {
        // One round at a time: a slow resolver must not pile rounds up.
        every(recheck.everyMs, () => {
          domainsChecking ??= recheck
            .run()
            .catch((error: unknown) => logger.warn({ err: error }, 'checking pending domains failed; retried next period'))
            .finally(() => {
              domainsChecking = undefined
            })
        })
      }
      const reload = deps.reloadDomains
      if (reload) every(DOMAINS_REFRESH_MS, () => void reload())
    },

    /**
     * Clears the timers, waits for a domain check in flight, then stops the dispatcher and writes the
     * visits to missing paths left. The click buffer is the container's to close.
     */
    async stop(): Promise<void> {
      for (const stop of stops.splice(0)) stop()
      await domainsChecking
      await deps.searchIndexer?.stop()
      await deps.dispatcher.stop()
      await deps.missingPaths?.close()
    },
  }
}
export type Jobs = ReturnType<typeof createJobs>
