/** The one source of "now", injectable so that tests can move time. Milliseconds since the epoch. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }
