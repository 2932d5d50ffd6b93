import { Worker } from 'node:worker_threads'
import type { Config } from '../config.js'
import type { ClickSink } from './clicks.js'
import type { EncodedVisits } from './visit-batch.js'

export type WriterSettings = Pick<Config, 'databaseUrl' | 'databaseStatementTimeoutMs' | 'clickWriterNice' | 'clickBlockIntervalMs' | 'geoipDb'> & {
  /** How much older than the block interval another writer's journal rows must be to be taken as stale (visit-writer.ts; tests shorten it). */
  readonly staleJournalMs?: number
  /** Rows the purge of a deleted link removes per batch (links.purger.ts; tests lower it to watch a purge under way). */
  readonly purgeBatch?: number
}

/** The thread's settings: the few fields of the configuration it reads (a worker cannot share the container's objects). */
export const writerSettings = (config: Config, staleJournalMs?: number, purgeBatch?: number): WriterSettings => ({
  databaseUrl: config.databaseUrl,
  databaseStatementTimeoutMs: config.databaseStatementTimeoutMs,
  clickWriterNice: config.clickWriterNice,
  clickBlockIntervalMs: config.clickBlockIntervalMs,
  geoipDb: config.geoipDb,
  staleJournalMs,
  purgeBatch,
})

/** To the thread: a batch of visits; a roll-up; a look for stale journal rows; a kick of the purge of deleted links; a wait until it is idle; the end. */
export type WriterMessage =
  | { id: number; visits: EncodedVisits }
  | { id: number; rollUp: { blocks: boolean } }
  | { id: number; upkeep: true }
  | { purge: true }
  | { id: number; purgeIdle: true }
  | { close: true }

interface ErrorReply {
  readonly message: string
  readonly code?: unknown
}
/** What the thread does on its own and reports when it fails: the purge of deleted links, the IP database (visits are then recorded without it). */
export type BackgroundTask = 'purge' | 'geoip'

/** From the thread: the answer to a batch, a roll-up or a wait (nothing when done, else the error), or a background task that failed. */
export type WriteReply = { readonly id: number; readonly error?: ErrorReply } | { readonly failed: BackgroundTask; readonly error: ErrorReply }

/**
 * The click writer thread, seen from the server: a ClickSink that hands each batch to a worker
 * thread with its own database connection, so that classifying and writing visits (most of a visit's
 * CPU) never runs on the event loop that answers redirects. A thread that dies is started
 * again by the next batch; the batches it held fail and stay in the click buffer for a retry.
 */
export function startClickWriterThread(settings: WriterSettings, onFailed: Readonly<Record<BackgroundTask, (error: Error) => void>>) {
  let worker: Worker | undefined
  let nextId = 0
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>()

  const failAll = (error: Error) => {
    for (const { reject } of waiting.values()) reject(error)
    waiting.clear()
  }

  function spawn(): Worker {
    // Semi-spaces of 8 MB (V8 counts three for the young generation): the roll-up's CPU is the same from
    // 4 to 64 MB (docs/performance.md, "Tried and not taken"), its memory is not (ADR 0017).
    const thread = new Worker(new URL('./click-writer.worker.js', import.meta.url), {
      workerData: settings,
      resourceLimits: { maxYoungGenerationSizeMb: 24 },
    })
    thread.on('message', (reply: WriteReply) => {
      const error = reply.error && Object.assign(new Error(reply.error.message), { code: reply.error.code })
      if ('failed' in reply) return onFailed[reply.failed](error as Error)
      const pending = waiting.get(reply.id)
      waiting.delete(reply.id)
      if (error === undefined) pending?.resolve()
      else pending?.reject(error)
    })
    thread.on('error', (error) => failAll(error))
    thread.on('exit', (code) => {
      if (worker === thread) worker = undefined
      failAll(new Error(`the click writer thread exited (code ${code})`))
    })
    return thread
  }

  const post = (message: WriterMessage) => {
    worker ??= spawn()
    worker.postMessage(message)
  }
  const request = (message: (id: number) => WriterMessage) =>
    new Promise<void>((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { resolve, reject })
      post(message(id))
    })

  return {
    sink: {
      // The numbers are shared memory (visit-batch.ts), not copied: a batch whose write fails is sent again as it is.
      write: ({ strings, links, numbers }) => request((id) => ({ id, visits: { strings, links, numbers } })),
      rollUp: (blocks = true) => request((id) => ({ id, rollUp: { blocks } })),
      upkeep: () => request((id) => ({ id, upkeep: true })),
    } satisfies ClickSink,

    /** The purge of deleted links (links.purger.ts), which runs in this thread. */
    purger: {
      /** Starts a purge round in the thread unless one runs; failures go to `onFailed.purge`. */
      kick: (): void => post({ purge: true }),
      /** Resolves once the thread has written what it was sent and no purge round runs. */
      idle: (): Promise<void> => request((id) => ({ id, purgeIdle: true })),
    },

    /** Lets the thread finish the batch it writes, then closes its connection. */
    async close(): Promise<void> {
      const thread = worker
      worker = undefined
      if (!thread) return
      const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()))
      thread.postMessage({ close: true })
      await exited
    },
  }
}
