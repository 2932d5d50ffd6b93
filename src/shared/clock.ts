/** The one source of "now", injectable so that tests can move time. Milliseconds since the epoch. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** Periodic work, injectable so that tests fire it by hand instead of waiting. */
export interface Timers {
  /** Calls `run` every `ms` until the returned function is called; never keeps the process alive. */
  every(ms: number, run: () => void): () => void
}

export const systemTimers: Timers = {
  every(ms, run) {
    const timer = setInterval(run, ms).unref()
    return () => clearInterval(timer)
  },
}

/** A clock that moves only when told: tests step time instead of sleeping or backdating rows. */
export function createManualClock(start = Date.UTC(2026, 0, 15, 12)) {
  let now = start
  return {
    now: () => now,
    /** Moves time forward by `ms`; returns the new now. */
    advance(ms: number): number {
      now += ms
      return now
    },
    set(ms: number): void {
      now = ms
    },
  }
}
export type ManualClock = ReturnType<typeof createManualClock>
