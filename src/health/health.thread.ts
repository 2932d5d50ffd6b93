import { Worker } from 'node:worker_threads'
import type { Config } from '../config.js'
import type { HealthSchedule, SweepResult } from './health.scheduler.js'

/** The checker thread's settings: plain data (a worker cannot share the container's objects, its outbound client included). */
export type HealthSettings = Pick<Config, 'databaseUrl' | 'databaseStatementTimeoutMs' | 'fetchAllowPrivate' | 'shortUrlScheme'> & {
  readonly schedule: HealthSchedule
  /** One check's whole exchange, by default the guarded client's 10 s; tests shorten it. */
  readonly timeoutMs?: number
}

/** To the thread: sweep now (and answer when done); the end. */
export type HealthMessage = { id: number; sweep: true } | { close: true }
/** From the thread: a sweep's answer; an event written (wake the webhook dispatcher); a failure to log. */
export type HealthReply = { id: number; result: SweepResult } | { recorded: true } | { error: { message: string; code?: unknown } }

/**
 * The destination checker's thread, seen from the server (health.worker.ts runs in it): its own
 * database connection and its own guarded outbound client, so that neither its queries nor its
 * requests' TLS and parsing run on the event loop that answers redirects. A thread that dies is
 * logged; the next start (or another instance, through the lease) takes over.
 */
export function startHealthThread(settings: HealthSettings, hooks: { onRecorded: () => void; onError: (error: Error) => void }) {
  // A thread that waits on the network most of the time: a small young generation (ADR 0017).
  const thread = new Worker(new URL('./health.worker.js', import.meta.url), { workerData: settings, resourceLimits: { maxYoungGenerationSizeMb: 6 } })
  let nextId = 0
  const waiting = new Map<number, (result: SweepResult) => void>()
  let exited = false
  const gone = new Promise<void>((resolve) =>
    thread.once('exit', (code) => {
      exited = true
      for (const resolveSweep of waiting.values()) resolveSweep({ held: false, checked: 0 })
      waiting.clear()
      if (code !== 0) hooks.onError(new Error(`the destination checker thread exited (code ${code})`))
      resolve()
    }),
  )
  thread.on('error', hooks.onError)
  thread.on('message', (reply: HealthReply) => {
    if ('recorded' in reply) return hooks.onRecorded()
    if ('error' in reply) return hooks.onError(Object.assign(new Error(reply.error.message), { code: reply.error.code }))
    waiting.get(reply.id)?.(reply.result)
    waiting.delete(reply.id)
  })

  return {
    /** Resolves once the thread has swept (after the sweep it runs, if any). */
    sweep(): Promise<SweepResult> {
      if (exited) return Promise.resolve({ held: false, checked: 0 })
      return new Promise((resolve) => {
        const id = nextId++
        waiting.set(id, resolve)
        thread.postMessage({ id, sweep: true } satisfies HealthMessage)
      })
    },
    /** Lets the checks in flight end, gives the lease up, closes the thread's connection. */
    async close(): Promise<void> {
      if (!exited) thread.postMessage({ close: true } satisfies HealthMessage)
      await gone
    },
  }
}
export type HealthThread = ReturnType<typeof startHealthThread>
