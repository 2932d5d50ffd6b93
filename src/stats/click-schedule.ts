import { systemClock, systemTimers, type Clock, type Timers } from '../shared/clock.js'

// Most visits per journal append (one row). Rows per visit do not depend on it (one per batch).
export const CLICK_BATCH_SIZE = 50_000
// A roll-up starts once this many visits wait for one, whatever the interval: it bounds the writer's
// memory (the journaled batches are kept for the roll-up) and the length of its transaction.
export const CLICK_ROLLUP_VISITS = 500_000
// A roll-up writes the click blocks once this many visits wait for them, whatever the interval: the
// writer keeps their batches until then (~40 bytes a visit).
export const CLICK_BLOCK_VISITS = 1_000_000

/**
 * The click buffer's time (clicks.ts): now, a repeating tick and a pause, injected so that its tests
 * step time instead of sleeping.
 */
export interface BufferClock extends Clock, Timers {
  sleep(ms: number): Promise<void>
}

export const systemBufferClock: BufferClock = {
  now: () => systemClock.now(),
  every: systemTimers.every,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}

/**
 * Visits written and waiting for a step of the roll-up (their counts, or their click blocks): how many,
 * how many the running roll-up took, and when the first of those waiting was written (undefined while
 * none waits). The step's interval counts from there, not from its last run: after a quiet spell the
 * first visits then wait like any others, instead of being rolled up at once on their own (a roll-up
 * costs per link and hour, so a burst's first second alone cost nearly as much as the whole burst).
 */
export class Backlog {
  waiting = 0
  #taken = 0
  #since: number | undefined

  get size(): number {
    return this.waiting + this.#taken
  }

  add(visits: number, writtenAt: number): void {
    this.waiting += visits
    this.#since ??= writtenAt
  }

  /**
   * Due at `now` once `visits` wait, or `intervalMs` after the first of them was written, give or take half a
   * flush interval: the timer tick an interval after the write's own may fire a hair before a whole
   * interval has passed since the write started, and the next is a tick later.
   */
  due(visits: number, intervalMs: number, flushMs: number, now: number): boolean {
    if (this.waiting >= visits) return true
    return this.waiting > 0 && this.#since !== undefined && now - this.#since >= intervalMs - flushMs / 2
  }

  /** A roll-up takes every visit waiting. */
  take(): void {
    this.#taken = this.waiting
    this.waiting = 0
    this.#since = undefined
  }

  /** The roll-up committed: what it took is done. */
  release(): void {
    this.#taken = 0
  }

  /** The roll-up failed: what it took waits again, as if written at `at`. */
  putBack(at: number): void {
    this.waiting += this.#taken
    this.#taken = 0
    this.#since = at
  }
}
