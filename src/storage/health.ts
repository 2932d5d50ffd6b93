import type { FastifyBaseLogger } from 'fastify'
import type { Storage } from './database.js'

const PROBE_INTERVAL_MS = 1000

/**
 * The database's outages as the log tells them: the first request that meets one logs it once, at
 * `error`, with what an operator needs (a disk full, a file the server cannot write, the driver's
 * reason); then the database is probed every second until it answers (or accepts writes) again, which
 * is logged once too, with how many requests were answered 503 meanwhile. Each of those requests is
 * logged by the error handler at `warn`, without a stack. A write fault (SQLite: no room, no
 * permission) also turns /readyz 503, which a read cannot notice.
 */
export function createDatabaseHealth(options: { storage: Storage; logger: FastifyBaseLogger; probeIntervalMs?: number }) {
  const { storage, logger } = options
  let outage: { since: number; answered: number; writes: boolean; room: boolean; timer: NodeJS.Timeout } | undefined
  let probing = false

  function failed(error: unknown, request = true): void {
    if (outage !== undefined) {
      if (request) outage.answered++
      return
    }
    const { code, message } = error as { code?: unknown; message?: unknown }
    const explained = storage.explain(error)
    logger.error(
      { code, reason: String(message ?? error), ...explained?.fields },
      explained?.message ?? `the database is unavailable (${String(code ?? message ?? error)}); requests answer 503 until it answers again`,
    )
    outage = {
      since: Date.now(),
      answered: request ? 1 : 0,
      writes: explained !== undefined,
      room: code === 'SQLITE_FULL',
      timer: setInterval(() => void probe(), options.probeIntervalMs ?? PROBE_INTERVAL_MS).unref(),
    }
  }

  async function probe(): Promise<void> {
    if (probing || outage === undefined) return
    probing = true
    try {
      const ok = outage.writes ? (await storage.writeProblem(outage.room)) === undefined : await storage.ping()
      if (!ok || outage === undefined) return
      clearInterval(outage.timer)
      const seconds = ((Date.now() - outage.since) / 1000).toFixed(1)
      logger.info(
        { downSeconds: Number(seconds), answered503: outage.answered },
        `the database ${outage.writes ? 'accepts writes' : 'answers'} again after ${seconds} s; ${outage.answered} requests were answered 503 meanwhile`,
      )
      outage = undefined
    } finally {
      probing = false
    }
  }

  return {
    /** A request met the database unavailable (it is answered 503). */
    failed: (error: unknown): void => failed(error),
    /** Writes fail for want of room or permission: /readyz answers 503 until they work again. */
    get writesFailing(): boolean {
      return outage?.writes === true
    },
    /** At a server's start: a database it cannot write is said at once, not at the first write. */
    async checkWrites(): Promise<void> {
      const problem = await storage.writeProblem(false)
      if (problem !== undefined) failed(problem, false)
    },
    close(): void {
      clearInterval(outage?.timer)
    },
  }
}
export type DatabaseHealth = ReturnType<typeof createDatabaseHealth>
