import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import type { Storage } from '../storage/database.js'

/** Links per transaction: about a millisecond of work, and most of what batching saves (ADR 0020). */
export const SEARCH_INDEX_BATCH = 100
/** How often the server looks for links to index: what a busy server's searches may have to test unindexed. */
export const SEARCH_INDEX_INTERVAL_MS = 250

/**
 * Keeps SQLite's search index of links written (ADR 0020). Each `tick` (the jobs call it every
 * `SEARCH_INDEX_INTERVAL_MS`) starts a round unless one runs: `index` batches until a batch is short,
 * pausing after each for four times as long as it took, so that a backlog (a bulk create's 10,000
 * links) is spread between the requests. A failed round is reported and the next tick tries again.
 */
export function createSearchIndexer(deps: { index: (limit: number) => Promise<number>; onError: (error: unknown) => void; batch?: number }) {
  const batch = deps.batch ?? SEARCH_INDEX_BATCH
  let round: Promise<void> | undefined
  let stopped = false

  async function run(): Promise<void> {
    for (;;) {
      const started = performance.now()
      if (stopped || (await deps.index(batch)) < batch) return
      await sleep(Math.max(1, 4 * (performance.now() - started)))
    }
  }

  return {
    tick(): void {
      if (round || stopped) return
      round = run()
        .catch(deps.onError)
        .finally(() => {
          round = undefined
        })
    },
    /** Stops after the batch in flight; what is left is indexed after the next start. */
    async stop(): Promise<void> {
      stopped = true
      await round
    },
  }
}

export type SearchIndexer = ReturnType<typeof createSearchIndexer>

/** The server's indexer on SQLite; none on PostgreSQL, whose indexes follow each write. */
export const searchIndexerFor = (storage: Storage, logger: Pick<FastifyBaseLogger, 'warn'>): SearchIndexer | undefined =>
  storage.dialect === 'sqlite'
    ? createSearchIndexer({
        index: (limit) => storage.adapter.indexSearch(storage.db, limit),
        onError: (error) =>
          logger.warn({ err: error }, 'writing the search index of links failed; retried within a second, and searches find the links meanwhile'),
      })
    : undefined
