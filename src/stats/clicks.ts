/** One visit of a short link, as the redirect saw it. Parsing and classification happen off the hot path. */
export interface Visit {
  readonly linkId: string
  readonly at: number
  readonly qr: boolean
  readonly ip: string | undefined
  readonly userAgent: string | undefined
  readonly referer: string | undefined
  readonly country: string | undefined
}

/** The seam between the redirect and the statistics pipeline: `record` must never block or throw. */
export interface ClickRecorder {
  record(visit: Visit): void
  /** Writes everything buffered so far. */
  flush(): Promise<void>
  /** Flushes and stops background work (graceful shutdown). */
  close(): Promise<void>
}

/** Until the statistics pipeline is wired, visits are accepted and dropped. */
export const discardClicks: ClickRecorder = { record() {}, flush: async () => {}, close: async () => {} }
