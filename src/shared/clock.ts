/** The one source of "now", injectable so that tests can move time. Milliseconds since the epoch. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

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
