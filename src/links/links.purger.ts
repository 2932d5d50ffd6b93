import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import type { LinksRepository } from './links.repository.js'

/**
 * Removes at most `limit` rows that a deleted link held in one feature's tables, in one short
 * statement, and says how many went (0: nothing of that link is left there).
 */
export type PurgeStep = (linkId: string, limit: number) => Promise<number>

/** Rows per statement: a few milliseconds of the write lock. */
export const PURGE_BATCH = 1000
const TOMBSTONES_PER_ROUND = 20

/**
 * The background purge of deleted links (tombstones, `links.deleted_at`): for each, every step runs in
 * batches until it finds nothing, then the link row goes. It runs in the click writer thread, on that
 * thread's connection (click-writer.worker.ts), so that on SQLite neither the deletes nor their commits
 * and checkpoints run on the event loop that answers requests; each batch is short, so an API write
 * waits for the write lock no longer than behind a batch of clicks. It resumes after a crash or a
 * restart (kicked at start, hourly and on every delete), and instances that purge the same link at
 * once only repeat idempotent deletes. One round at a time; a kick during a round asks for another.
 */
export function createLinkPurger(deps: { repo: LinksRepository; steps: PurgeStep[]; onError: (error: unknown) => void; batch?: number }) {
  const batch = deps.batch ?? PURGE_BATCH
  let round: Promise<void> | undefined
  let again = false
  let stopped = false

  async function purge(linkId: string): Promise<boolean> {
    for (const step of deps.steps) {
      while ((await step(linkId, batch)) > 0) {
        if (stopped) return false
        // Lets the thread's click batches take their turn between purge batches.
        await yieldToEventLoop()
      }
    }
    await deps.repo.deletePurged(linkId)
    return true
  }

  async function runRound(): Promise<void> {
    for (;;) {
      const pending = await deps.repo.pendingPurge(TOMBSTONES_PER_ROUND)
      for (const linkId of pending) {
        if (stopped || !(await purge(linkId))) return
      }
      if (pending.length < TOMBSTONES_PER_ROUND) return
    }
  }

  const purger = {
    /** Starts a round unless one runs (then one more follows it). Never throws: a failed round is reported and retried by the next kick. */
    kick(): void {
      if (stopped) return
      if (round) {
        again = true
        return
      }
      round = runRound()
        .catch(deps.onError)
        .finally(() => {
          round = undefined
          if (again) {
            again = false
            purger.kick()
          }
        })
    },
    /** Resolves when no round runs: what a test waits for after a delete. */
    idle: async (): Promise<void> => {
      while (round) await round
    },
    /** Stops after the batch in flight; what is left is taken up at the next start. */
    async stop(): Promise<void> {
      stopped = true
      await round
    },
  }
  return purger
}
export type LinkPurger = ReturnType<typeof createLinkPurger>
