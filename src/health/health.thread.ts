import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { MessageChannel, type MessagePort } from 'node:worker_threads'
import type { Config } from '../config.js'
import { threadsOnDemand } from '../shared/threads-on-demand.js'
import type { HealthRepository } from './health.repository.js'
import { HEALTH_LEASE, HEALTH_POLL_MS, type HealthSchedule, type SweepResult } from './health.scheduler.js'

/** A sweep's settings: plain data (a worker cannot share the container's objects, its outbound client included). */
export type HealthSettings = Pick<Config, 'databaseUrl' | 'databaseStatementTimeoutMs' | 'fetchAllowPrivate' | 'shortUrlScheme'> & {
  readonly schedule: HealthSchedule
  /** One check's whole exchange, by default the guarded client's 10 s; tests shorten it. */
  readonly timeoutMs?: number
}

/** What the thread is given for one sweep (health.worker.ts): the lease's holder is this process's, whichever thread sweeps. */
export interface SweepTask {
  readonly settings: HealthSettings
  readonly holder: string
  /** To the thread: stop after the checks in flight. From it: HealthReply. */
  readonly port: MessagePort
}
/** From the thread: an event written (wake the webhook dispatcher); a failure to log. */
export type HealthReply = { recorded: true } | { error: { message: string; code?: unknown } }

const NOT_HELD: SweepResult = { held: false, checked: 0 }

/**
 * The destination checker, seen from the server. The poll runs here, every `pollMs`: one indexed
 * query asks whether a link is due, and only then, unless another instance holds the lease, is a
 * thread started for a sweep (health.worker.ts),
 * with its own database connection and its own guarded outbound client, so that neither its queries
 * nor its requests' TLS and parsing run on the event loop that answers redirects. The thread ends
 * with its sweep: between sweeps (most of a 24 h interval) the server holds no isolate for it.
 */
export function startHealthChecker(
  settings: HealthSettings,
  deps: { repo: HealthRepository; now: () => number; pollMs?: number; onRecorded: () => void; onError: (error: Error) => void },
) {
  // A thread that waits on the network most of the time: a small young generation (ADR 0017).
  const threads = threadsOnDemand(new URL('./health.worker.js', import.meta.url), { idleMs: 0, resourceLimits: { maxYoungGenerationSizeMb: 6 } })
  const holder = `${hostname()}:${process.pid}:${randomUUID()}`
  let running: Promise<SweepResult> = Promise.resolve(NOT_HELD)
  let stopSweep: (() => void) | undefined
  let closed = false
  let timer: NodeJS.Timeout | undefined
  let polling: Promise<void> = Promise.resolve()

  async function sweepInThread(): Promise<SweepResult> {
    if (closed) return NOT_HELD
    const { port1, port2 } = new MessageChannel()
    // The thread closes its end when the sweep is over (or when it dies), which closes this one.
    port1.on('message', (reply: HealthReply) => {
      if ('recorded' in reply) return deps.onRecorded()
      deps.onError(Object.assign(new Error(reply.error.message), { code: reply.error.code }))
    })
    stopSweep = () => port1.postMessage({ stop: true })
    try {
      return (await threads.run({ settings, holder, port: port2 } satisfies SweepTask, { transferList: [port2] })) as SweepResult
    } catch (error) {
      deps.onError(new Error(`the destination checker thread failed: ${String((error as Error).message ?? error)}`))
      return NOT_HELD
    } finally {
      stopSweep = undefined
    }
  }

  /** One sweep after the one running, if any. */
  const sweep = (): Promise<SweepResult> => (running = running.then(sweepInThread))

  async function poll(): Promise<void> {
    try {
      const now = deps.now()
      const due = (await deps.repo.due(now, now - settings.schedule.intervalMs, 1)).length > 0
      // Another instance sweeping holds the lease: a thread started here would only find that out.
      const elsewhere = due && ((await deps.repo.liveHolder(HEALTH_LEASE, now)) ?? holder) !== holder
      if (due && !elsewhere) await sweep()
    } catch (error) {
      deps.onError(error as Error)
    }
    if (closed) return
    timer = setTimeout(() => {
      polling = poll()
    }, deps.pollMs ?? HEALTH_POLL_MS).unref()
  }
  polling = poll()

  return {
    /** Sweeps now, in a thread started for it, due links or not (tests ask for it); resolves once done. */
    sweep,
    /** Threads up now: one during a sweep, none between. */
    threads: (): number => threads.threads.length,
    /** Lets the checks in flight end, ends the thread and gives the lease up, so that another instance takes over at once. */
    async close(): Promise<void> {
      closed = true
      clearTimeout(timer)
      stopSweep?.()
      // The poll's query, then the sweep it may have started, are done before the connection closes.
      await polling
      await running
      await threads.destroy()
      await deps.repo.releaseLease(HEALTH_LEASE, holder).catch(deps.onError)
    },
  }
}
export type HealthChecker = ReturnType<typeof startHealthChecker>
