import type { EncodedVisits, Visit } from './visit-batch.js'

/** The seam between the redirect and the statistics pipeline: `record` must never block or throw. */
export interface ClickRecorder {
  /**
   * Buffers a visit; `counted`: a human visit of a link with a click limit. False when the visit was
   * dropped instead (the buffer is full, or closed).
   */
  record(visit: Visit, counted?: boolean): boolean
  /**
   * Writes everything buffered so far and rolls it up into the statistics; rejects when a write fails
   * (the visits stay buffered, or journaled).
   */
  flush(): Promise<void>
  /**
   * Brings the statistics up to this instance's visits for a read that wants them (a visit is in the
   * statistics within FRESH_MS plus a write on the instance that served it): writes what is buffered and
   * counts what is written, unless a roll-up of this kind ran within FRESH_MS. Never rejects: a read
   * goes on with what is counted.
   */
  freshen(): Promise<void>
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
 * journal); `rollUp` turns what was written before it into statistics (rollups, breakdowns, uniques),
 * which costs per distinct link, hour and value, not per visit, and, unless `blocks` is false, into the
 * export's click blocks (with what earlier roll-ups without blocks counted), which cost per link and hour.
 */
export interface ClickSink {
  write(batch: EncodedVisits): Promise<void>
  rollUp(blocks?: boolean): Promise<void>
  /**
   * What must happen without traffic here, called on a timer: rolls up the journal rows other writers
   * left stale (an instance that crashed before rolling them up), and compacts the click blocks of
   * hours and days that closed since (otherwise left as written until the next visit's roll-up).
   */
  upkeep(): Promise<void>
}
