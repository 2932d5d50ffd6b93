/** Time units of epoch milliseconds, and the one way to bucket them (in SQL: storage/dialect.ts `bucketStart`). */
export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

/**
 * The start of the bucket of `unit` ms that holds `ms`. An hour and a day divide epoch time evenly in
 * UTC, so their buckets are plain arithmetic (a month is not: stats.range.ts walks the calendar).
 */
export const floorTo = (ms: number, unit: number): number => Math.floor(ms / unit) * unit
