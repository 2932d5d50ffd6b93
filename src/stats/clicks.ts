import type { FastifyBaseLogger } from 'fastify'
import type { Metrics } from '../ops/metrics.js'
import { Backlog, systemBufferClock, type BufferClock } from './click-schedule.js'
import type { ClickRecorder, ClickSink } from './click-ports.js'
import { VisitBatchBuilder, visitCount, type EncodedVisits, type Visit } from './visit-batch.js'

export type { Visit } from './visit-batch.js'
export type { ClickRecorder, ClickSink } from './click-ports.js'

/**
 * The in-process click buffer: the redirect appends, a background flusher writes batches through
 * the sink — every `intervalMs`, as soon as a full batch is waiting, and on close — and has them
 * rolled up `rollupIntervalMs` after the first of them was written, once `rollupVisits` visits wait for
 * it, and on flush; their click blocks come with the roll-up due `blockIntervalMs` after the first of
 * them was written (or once `blockVisits` wait), in a roll-up of their own if none is due then, and
 * with any roll-up once the writes have stopped (#quiet). A failed batch goes back to the head of the buffer and is retried by the next
 * flush. The buffer is bounded (visits being written count too): when the database is slow or down,
 * visits beyond the bound are dropped and counted, so that the redirect never waits for statistics.
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
  readonly #clock: BufferClock
  /** The batch the redirect adds to; full or flushed, it is sealed into `#sealed`, which the flusher writes in order. */
  readonly #open = new VisitBatchBuilder()
  #sealed: EncodedVisits[] = []
  #sealedVisits = 0
  /** Visits written and not counted yet by a roll-up. */
  readonly #uncounted = new Backlog()
  /** Visits written and not in click blocks yet. */
  readonly #unblocked = new Backlog()
  /** When the last batch was written. */
  #lastWritten = 0
  readonly #blockIntervalMs: number
  readonly #blockVisits: number
  #rolling: { readonly done: Promise<void>; readonly blocks: boolean } | undefined
  #writing = 0
  #draining: Promise<void> | undefined
  #stopTimer: (() => void) | undefined
  #closed = false
  /** Logged on the change only, so that an outage writes two lines, not one per flush. */
  #failing = false
  #droppedAtClose = 0
  /** When the last roll-up for a read (freshen) started. */
  #freshenedAt = -Infinity
  #freshening: Promise<void> | undefined
  /** When the sink's upkeep last ran (#upkeepIfDue). */
  #lastUpkeep = 0
  #upkeeping: Promise<void> | undefined

  constructor(options: {
    sink: ClickSink
    metrics: Metrics
    logger: FastifyBaseLogger
    capacity: number
    batchSize: number
    intervalMs: number
    rollupIntervalMs: number
    rollupVisits: number
    blockIntervalMs: number
    blockVisits: number
    /** By default the system's. */
    clock?: BufferClock
  }) {
    this.#clock = options.clock ?? systemBufferClock
    this.#sink = options.sink
    this.#metrics = options.metrics
    this.#logger = options.logger
    this.#metrics.watchClickBuffer(
      () => this.size,
      () => this.#uncounted.size,
      () => this.#unblocked.size,
    )
    this.#capacity = options.capacity
    this.#batchSize = options.batchSize
    this.#intervalMs = options.intervalMs
    this.#rollupIntervalMs = options.rollupIntervalMs
    this.#rollupVisits = options.rollupVisits
    this.#blockIntervalMs = options.blockIntervalMs
    this.#blockVisits = options.blockVisits
  }

  /**
   * Starts the periodic flush, and a first roll-up for what a previous process may have left in the
   * journal (a crash between a flush and its roll-up); then, every roll-up interval, the sink's upkeep
   * (other writers' stale rows, closed hours' blocks), traffic or not (#upkeepIfDue). The timer never keeps the process alive.
   */
  start(): void {
    if (this.#stopTimer || this.#closed) return
    // On the first tick, not during the start: the server is listening by then.
    let recovered = false
    this.#stopTimer = this.#clock.every(this.#intervalMs, () => {
      this.#kick()
        .then(() => {
          if (recovered) return this.#rollUpIfDue() ?? this.#upkeepIfDue()
          recovered = true
          this.#lastUpkeep = this.#clock.now()
          return this.#rollUp(true)
        })
        .catch(() => {})
    })
  }

  /**
   * The sink's upkeep once per roll-up interval: a crashed instance's visits must not wait for traffic
   * to this one (an idle survivor, or the crashed one's successor, whose writer is new), nor an idle
   * server's last hours for their compaction. A failure is the database's, which the writes and
   * /readyz report.
   */
  #upkeepIfDue(): Promise<void> | undefined {
    if (this.#upkeeping !== undefined || this.#clock.now() - this.#lastUpkeep < this.#rollupIntervalMs) return undefined
    this.#lastUpkeep = this.#clock.now()
    this.#upkeeping = this.#sink.upkeep().finally(() => {
      this.#upkeeping = undefined
    })
    return this.#upkeeping
  }

  record(visit: Visit, counted = false): boolean {
    if (this.#closed || this.size >= this.#capacity) {
      this.#metrics.dropClicks(this.#closed ? 'shutdown' : 'buffer_full', 1)
      return false
    }
    this.#open.add(visit, counted)
    if (this.#open.size >= this.#batchSize) {
      this.#seal()
      void this.#kick()
    }
    return true
  }

  async flush(): Promise<void> {
    await this.#writeAll()
    await this.#rollUpWritten()
  }

  freshen(): Promise<void> {
    if (this.#closed) return Promise.resolve()
    // Reads share the running one; a burst of reads (a dashboard's several calls) makes one roll-up.
    if (this.#freshening !== undefined || this.#clock.now() - this.#freshenedAt < FRESH_MS) return this.#freshening ?? Promise.resolve()
    if (this.size === 0 && this.#uncounted.waiting === 0) return Promise.resolve()
    this.#freshenedAt = this.#clock.now()
    this.#freshening = (async () => {
      await this.#writeAll()
      // Counts only: the click blocks keep their own schedule, which bounds their number. A roll-up the
      // write started has taken what waited: it is the one to wait for.
      if (this.#uncounted.waiting > 0) await this.#rollUp(false)
      else await this.#rolling?.done
    })()
      .catch(() => {})
      .finally(() => {
        this.#freshening = undefined
      })
    return this.#freshening
  }

  get size(): number {
    return this.#open.size + this.#sealedVisits + this.#writing
  }

  /** Visits that never reached the journal: those buffered, and those close() dropped (a shutdown's last line counts both). */
  get unwritten(): number {
    return this.size + this.#droppedAtClose
  }

  async close(deadline = 0): Promise<number> {
    if (this.#closed) return 0
    this.#closed = true
    this.#stopTimer?.()
    let dropped = 0
    for (;;) {
      try {
        await this.#writeAll()
        break
      } catch (error) {
        // The store is locked or unreachable: the shutdown timeout is the time it may take to come back.
        if (this.#clock.now() + CLOSE_RETRY_MS < deadline) {
          await this.#clock.sleep(CLOSE_RETRY_MS)
          continue
        }
        dropped = this.size
        this.#droppedAtClose = dropped
        this.#logger.error({ err: error, dropped }, `could not write ${dropped} buffered visits at shutdown; they are dropped`)
        this.#metrics.dropClicks('shutdown', dropped)
        this.#open.take()
        this.#sealed = []
        this.#sealedVisits = 0
        break
      }
    }
    // What was written is in the journal, which is durable: a roll-up that fails now is the next start's.
    await this.#rollUpWritten().catch((error: unknown) =>
      this.#logger.warn({ err: error }, 'could not roll up the written visits at shutdown; the next start rolls them up'),
    )
    return dropped
  }

  /** Writes everything buffered so far (a drain under way may have started before the latest visits: waits for it, then drains again). */
  async #writeAll(): Promise<void> {
    await this.#draining?.catch(() => {})
    await this.#kick(true)
  }

  /** Rolls up what was written, click blocks included, if anything: a CLI command that recorded no visit never opens the writer's connection. */
  async #rollUpWritten(): Promise<void> {
    // Every visit not counted yet waits for its blocks too.
    if (this.#unblocked.waiting > 0 || this.#rolling !== undefined) await this.#rollUp(true)
  }

  /**
   * A roll-up when one is due: once `rollupVisits` visits wait for it, or `rollupIntervalMs` after the
   * first of those waiting was written; with the click blocks when they are due (#blocksDue), and then
   * even with nothing new to count.
   */
  #rollUpIfDue(): Promise<void> | undefined {
    const count = this.#uncounted.due(this.#rollupVisits, this.#rollupIntervalMs, this.#intervalMs, this.#clock.now())
    const blocks = this.#blocksDue() || (count && this.#quiet())
    return count || blocks ? this.#rollUp(blocks) : undefined
  }

  /**
   * Nothing buffered, and no batch written for half a roll-up interval: the visits have stopped, so no
   * later roll-up's visits would join these in their blocks, and writing them apart would only cost a
   * second pass over the same links (a burst's blocks then come with its roll-up, as before the blocks
   * had an interval of their own).
   */
  #quiet(): boolean {
    return this.size === 0 && this.#clock.now() - this.#lastWritten >= this.#rollupIntervalMs / 2
  }

  /** Click blocks are due once `blockVisits` visits wait for them, or `blockIntervalMs` after the first of those waiting was written. */
  #blocksDue(): boolean {
    return this.#unblocked.due(this.#blockVisits, this.#blockIntervalMs, this.#intervalMs, this.#clock.now())
  }

  /** Starts draining unless a drain runs; returns the running drain (which a timer tick ignores if it fails). */
  #kick(all = false): Promise<void> {
    if (!this.#draining) {
      this.#draining = this.#drain(all).finally(() => {
        this.#draining = undefined
      })
      this.#draining.catch(() => {})
    }
    return this.#draining
  }

  /**
   * Rolls up what was written (with the click blocks: `blocks`), unless a roll-up runs: then waits for it
   * and rolls up again, as it may have started before the latest writes; a roll-up started meanwhile by
   * another caller serves too, unless it leaves out click blocks asked for.
   */
  async #rollUp(blocks: boolean): Promise<void> {
    await this.#rolling?.done.catch(() => {})
    while (blocks && this.#rolling !== undefined && !this.#rolling.blocks) await this.#rolling.done.catch(() => {})
    this.#rolling ??= { done: this.#startRollUp(blocks), blocks }
    return this.#rolling.done
  }

  async #startRollUp(blocks: boolean): Promise<void> {
    const taken = blocks ? [this.#uncounted, this.#unblocked] : [this.#uncounted]
    for (const backlog of taken) backlog.take()
    const begun = this.#clock.now()
    const started = process.hrtime.bigint()
    try {
      await this.#sink.rollUp(blocks)
      for (const backlog of taken) backlog.release()
      this.#metrics.observeClickRollup('ok', seconds(started))
    } catch (error) {
      // Tried again an interval after this attempt, not at once (the database may be down).
      for (const backlog of taken) backlog.putBack(begun)
      this.#metrics.observeClickRollup('error', seconds(started))
      // At shutdown close() says it once, with what happens next (the next start rolls them up).
      if (!this.#closed) this.#logger.warn({ err: error }, 'rolling up written clicks failed; retried with the next roll-up')
      throw error
    } finally {
      this.#rolling = undefined
    }
  }

  /** Closes the open batch: from now on it is written as it is. */
  #seal(): void {
    if (this.#open.size === 0) return
    const batch = this.#open.take()
    this.#sealed.push(batch)
    this.#sealedVisits += visitCount(batch)
  }

  /**
   * Writes the sealed batches and what the open one holds, and, when `all`, whatever the redirect adds
   * meanwhile. Not that by default: under load the redirect adds visits while a batch is written, and
   * writing each trickle at once made a transaction (and an fsync) per millisecond instead of one per
   * flush interval.
   */
  async #drain(all: boolean): Promise<void> {
    this.#seal()
    for (;;) {
      if (all) this.#seal()
      const batch = this.#sealed.shift()
      if (batch === undefined) return
      const size = visitCount(batch)
      this.#sealedVisits -= size
      this.#writing = size
      const begun = this.#clock.now()
      const started = process.hrtime.bigint()
      try {
        await this.#sink.write(batch)
        this.#open.recycle(batch)
        this.#metrics.observeClickFlush('ok', size, seconds(started))
        this.#uncounted.add(size, begun)
        this.#unblocked.add(size, begun)
        this.#lastWritten = this.#clock.now()
        // Visits of links with a click limit are rolled up at once: other instances read the limit's
        // count from the rollups, so it stays within a flush interval everywhere (docs/api/redirect.md, maxClicks).
        const limited = batch.counted !== undefined && batch.counted.size > 0
        void (limited ? this.#rollUp(this.#blocksDue()) : this.#rollUpIfDue())?.catch(() => {})
        if (this.#failing) this.#logger.info('writing clicks works again')
        this.#failing = false
      } catch (error) {
        // Back at the head, as it was: retried first by the next flush.
        this.#sealed.unshift(batch)
        this.#sealedVisits += size
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
/** A read brings the statistics up to date at most once per this (ClickRecorder.freshen), so polling reads cost at most a roll-up a second. */
export const FRESH_MS = 1000
const seconds = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9
