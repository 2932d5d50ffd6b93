import { setImmediate as yieldToEventLoop } from 'node:timers/promises'

/** Links per transaction: a few milliseconds of the write lock, and most of what batching saves (ADR 0020). */
export const SEARCH_INDEX_BATCH = 200
/** How often the click writer thread looks for links to index: what a busy server's searches may have to test unindexed. */
export const SEARCH_INDEX_INTERVAL_MS = 250

/**
 * Keeps SQLite's search index of links written (ADR 0020): every `intervalMs`, `index` batches until
 * none are left, yielding between batches so that the thread's click batches take their turn. One
 * round at a time; a failed round is reported and the next tick tries again. Runs in the click writer
 * thread, off the event loop that answers requests.
 */
export function startSearchIndexer(deps: {
  index: (limit: number) => Promise<number>
  onError: (error: unknown) => void
  intervalMs?: number
  batch?: number
}) {
  const batch = deps.batch ?? SEARCH_INDEX_BATCH
  let round: Promise<void> | undefined
  let stopped = false

  const tick = () => {
    if (round || stopped) return
    round = (async () => {
      while (!stopped && (await deps.index(batch)) === batch) await yieldToEventLoop()
    })()
      .catch(deps.onError)
      .finally(() => {
        round = undefined
      })
  }
  const timer = setInterval(tick, deps.intervalMs ?? SEARCH_INDEX_INTERVAL_MS)
  tick()

  return {
    /** Resolves once a round that began after the call is over: everything noted before it is indexed. */
    async catchUp(): Promise<void> {
      while (round) await round
      tick()
      await round
    },
    /** Stops after the batch in flight; what is left is indexed after the next start. */
    async stop(): Promise<void> {
      stopped = true
      clearInterval(timer)
      await round
    },
  }
}
