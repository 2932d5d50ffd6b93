import type { FastifyBaseLogger } from 'fastify'
import type { Metrics } from '../ops/metrics.js'

/** One visit of a short link, as the redirect saw it. Parsing and classification happen off the hot path. */
export interface Visit {
  readonly linkId: string
  readonly at: number
  readonly qr: boolean
  /** A HEAD request: link previews check links with HEAD, often with a browser's User-Agent. */
  readonly head: boolean
  readonly ip: string | undefined
  readonly userAgent: string | undefined
  readonly referer: string | undefined
  readonly country: string | undefined
}

/** The seam between the redirect and the statistics pipeline: `record` must never block or throw. */
export interface ClickRecorder {
  record(visit: Visit): void
  /** Writes everything buffered so far; rejects when a write fails (the visits stay buffered). */
  flush(): Promise<void>
  /**
   * Stops background work and writes what is buffered, retrying failed writes until `deadline` (epoch
   * ms; by default, one attempt). Resolves to the number of visits that could not be written and were dropped.
   */
  close(deadline?: number): Promise<number>
  /** Visits buffered and not yet written. */
  readonly size: number
}

/** Writes one batch of visits in one transaction: all of them or none. */
export type ClickSink = (visits: readonly Visit[]) => Promise<void>

/**
 * The in-process click buffer: the redirect appends, a background flusher writes batches through
 * the sink — every `intervalMs`, as soon as a full batch is waiting, and on close. A failed batch
 * goes back to the head of the buffer and is retried by the next flush. The buffer is bounded
 * (visits being written count too): when the database is slow or down, visits beyond the bound are
 * dropped and counted, so that the redirect never waits for statistics.
 */
export class ClickBuffer implements ClickRecorder {
  readonly #sink: ClickSink
  readonly #metrics: Metrics
  readonly #logger: FastifyBaseLogger
  readonly #capacity: number
  readonly #batchSize: number
  readonly #intervalMs: number
  #pending: Visit[] = []
  #writing = 0
  #draining: Promise<void> | undefined
  #timer: NodeJS.Timeout | undefined
  #closed = false
  /** Logged on the change only, so that an outage writes two lines, not one per flush. */
  #failing = false

  constructor(options: { sink: ClickSink; metrics: Metrics; logger: FastifyBaseLogger; capacity: number; batchSize: number; intervalMs: number }) {
    this.#sink = options.sink
    this.#metrics = options.metrics
    this.#logger = options.logger
    this.#metrics.watchClickBuffer(() => this.#pending.length + this.#writing)
    this.#capacity = options.capacity
    this.#batchSize = options.batchSize
    this.#intervalMs = options.intervalMs
  }

  /** Starts the periodic flush; the timer never keeps the process alive. */
  start(): void {
    if (this.#timer || this.#closed) return
    this.#timer = setInterval(() => this.#kick(), this.#intervalMs).unref()
  }

  record(visit: Visit): void {
    if (this.#closed || this.#pending.length + this.#writing >= this.#capacity) {
      this.#metrics.dropClicks(this.#closed ? 'shutdown' : 'buffer_full', 1)
      return
    }
    this.#pending.push(visit)
    if (this.#pending.length >= this.#batchSize) this.#kick()
  }

  async flush(): Promise<void> {
    // A drain already under way may have started before the latest visits: wait for it, then drain again.
    await this.#draining?.catch(() => {})
    await this.#kick()
  }

  get size(): number {
    return this.#pending.length + this.#writing
  }

  async close(deadline = 0): Promise<number> {
    if (this.#closed) return 0
    this.#closed = true
    clearInterval(this.#timer)
    for (;;) {
      try {
        await this.flush()
        return 0
      } catch (error) {
        // The store is locked or unreachable: the shutdown timeout is the time it may take to come back.
        if (Date.now() + CLOSE_RETRY_MS < deadline) {
          await new Promise((resolve) => setTimeout(resolve, CLOSE_RETRY_MS))
          continue
        }
        const dropped = this.#pending.length
        this.#logger.error({ err: error, dropped }, `could not write ${dropped} buffered visits at shutdown; they are dropped`)
        this.#metrics.dropClicks('shutdown', dropped)
        this.#pending = []
        return dropped
      }
    }
  }

  /** Starts draining unless a drain runs; returns the running drain (which a timer tick ignores if it fails). */
  #kick(): Promise<void> {
    if (!this.#draining) {
      this.#draining = this.#drain().finally(() => {
        this.#draining = undefined
      })
      this.#draining.catch(() => {})
    }
    return this.#draining
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.#batchSize)
      this.#writing = batch.length
      const started = process.hrtime.bigint()
      try {
        await this.#sink(batch)
        this.#metrics.observeClickFlush('ok', batch.length, seconds(started))
        if (this.#failing) this.#logger.info('writing clicks works again')
        this.#failing = false
      } catch (error) {
        this.#pending = batch.concat(this.#pending)
        this.#metrics.observeClickFlush('error', 0, seconds(started))
        if (!this.#failing) this.#logger.warn({ err: error }, 'writing clicks failed; visits stay buffered and are retried')
        this.#failing = true
        throw error
      } finally {
        this.#writing = 0
      }
    }
  }
}

const CLOSE_RETRY_MS = 250

const seconds = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9
