import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import type { LinksRepository } from './links.repository.js'

/**
 * Removes at most `limit` rows that a deleted link held in one feature's tables, in one short
 * statement, and says how many went (0: nothing of that link is left there).
 */
export type PurgeStep = (linkId: string, limit: number) => Promise<number>

/** Rows per statement: a few milliseconds of SQLite's time on the serving thread, or of the write lock. */
export const PURGE_BATCH = 1000
const TOMBSTONES_PER_ROUND = 20

/**
 * The background purge of deleted links (tombstones, `links.deleted_at`): for each, every step runs in
 * batches until it finds nothing, then the link row goes. Between batches the event loop serves
 * others, so deleting a link with millions of clicks stalls no request. It resumes after a crash or a
 * restart (`kick()` at start), and instances that purge the same link at once only repeat idempotent
 * deletes. Runs one round at a time; a kick during a round asks for another.
 */
export function createLinkPurger(deps: { repo: LinksRepository; steps: PurgeStep[]; logger: FastifyBaseLogger; batch?: number }) {
  const batch = deps.batch ?? PURGE_BATCH
  let round: Promise<void> | undefined
  let again = false
  let stopped = false

  async function purge(linkId: string): Promise<boolean> {
    for (const step of deps.steps) {
      while (await step(linkId, batch) > 0) {
        if (stopped) return false
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
    /** Starts a round unless one runs (then one more follows it). Never throws: a failed round is logged and retried by the next kick. */
    kick(): void {
      if (stopped) return
      if (round) {
        again = true
        return
      }
      round = runRound()
        .catch((error: unknown) => deps.logger.warn({ err: error }, 'purging deleted links failed; retried on the next delete or within the hour'))
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
