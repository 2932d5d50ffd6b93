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
  /**
   * Writes everything buffered so far and rolls it up into the statistics; rejects when a write fails
   * (the visits stay buffered, or journaled).
   */
  flush(): Promise<void>
  /**
   * Stops background work and writes what is buffered, retrying failed writes until `deadline` (epoch
   * ms; by default, one attempt). Resolves to the number of visits that could not be written and were dropped.
   */
  close(deadline?: number): Promise<number>
  /** Visits buffered and not yet written. */
  readonly size: number
}

/**
 * Where visits go. `write` makes one batch durable in one transaction, all of it or none (the click
 * journal); `rollUp` turns what was written before it into statistics (rollups, breakdowns, uniques,
 * the export's click blocks), which costs per distinct link, hour and value, not per visit.
 */
export interface ClickSink {
  write(visits: readonly Visit[]): Promise<void>
  rollUp(): Promise<void>
}

/**
 * The in-process click buffer: the redirect appends, a background flusher writes batches through
 * the sink — every `intervalMs`, as soon as a full batch is waiting, and on close — and has them
 * rolled up every `rollupIntervalMs`, once `rollupVisits` visits wait for it, and on flush. A failed batch
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
  readonly #rollupIntervalMs: number
  readonly #rollupVisits: number
  #pending: Visit[] = []
  /** Visits written since the last roll-up started, and those the running roll-up takes. */
  #unrolled = 0
  #rollingVisits = 0
  #lastRollup = 0
  #rolling: Promise<void> | undefined
  #writing = 0
  #draining: Promise<void> | undefined
  #timer: NodeJS.Timeout | undefined
  #closed = false
  /** Logged on the change only, so that an outage writes two lines, not one per flush. */
  #failing = false

  constructor(options: {
    sink: ClickSink
    metrics: Metrics
    logger: FastifyBaseLogger
    capacity: number
    batchSize: number
    intervalMs: number
    rollupIntervalMs: number
    rollupVisits: number
  }) {
    this.#sink = options.sink
    this.#metrics = options.metrics
    this.#logger = options.logger
    this.#metrics.watchClickBuffer(
      () => this.#pending.length + this.#writing,
      () => this.#unrolled + this.#rollingVisits,
    )
    this.#capacity = options.capacity
    this.#batchSize = options.batchSize
    this.#intervalMs = options.intervalMs
    this.#rollupIntervalMs = options.rollupIntervalMs
    this.#rollupVisits = options.rollupVisits
    this.#lastRollup = Date.now()
  }

  /**
   * Starts the periodic flush, and a first roll-up for what a previous process may have left in the
   * journal (a crash between a flush and its roll-up); the timer never keeps the process alive.
   */
  start(): void {
    if (this.#timer || this.#closed) return
    void this.#rollUp().catch(() => {})
    this.#timer = setInterval(() => {
      this.#kick()
        .then(() => {
          if (this.#unrolled > 0 && Date.now() - this.#lastRollup >= this.#rollupIntervalMs) return this.#rollUp()
        })
        .catch(() => {})
    }, this.#intervalMs).unref()
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
    // Nothing written, nothing to roll up: a CLI command that recorded no visit never opens the writer's connection.
    if (this.#unrolled > 0 || this.#rolling !== undefined) await this.#rollUp()
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

  /** Rolls up what was written, unless a roll-up runs (then waits for it and rolls up again: it may have started before the latest writes). */
  async #rollUp(): Promise<void> {
    await this.#rolling?.catch(() => {})
    this.#rolling ??= (async () => {
      this.#rollingVisits = this.#unrolled
      this.#unrolled = 0
      this.#lastRollup = Date.now()
      const started = process.hrtime.bigint()
      try {
        await this.#sink.rollUp()
        this.#metrics.observeClickRollup('ok', seconds(started))
      } catch (error) {
        this.#unrolled += this.#rollingVisits
        this.#metrics.observeClickRollup('error', seconds(started))
        this.#logger.warn({ err: error }, 'rolling up written clicks failed; retried with the next roll-up')
        throw error
      }
    })().finally(() => {
      this.#rollingVisits = 0
      this.#rolling = undefined
    })
    return this.#rolling
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.#batchSize)
      this.#writing = batch.length
      const started = process.hrtime.bigint()
      try {
        await this.#sink.write(batch)
        this.#metrics.observeClickFlush('ok', batch.length, seconds(started))
        this.#unrolled += batch.length
        if (this.#unrolled >= this.#rollupVisits || Date.now() - this.#lastRollup >= this.#rollupIntervalMs) void this.#rollUp().catch(() => {})
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
