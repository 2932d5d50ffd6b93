/**
 * How instances tell each other that what they keep in memory for the redirect (cached targets,
 * custom domains) changed. One instance alone uses the in-memory bus; several use Redis pub/sub.
 */
export interface InvalidationBus {
  /** A link's (domain, path) changed or went away. Resolves once other instances were told. */
  publishLink(domain: string, path: string): Promise<void>
  /**
   * The set of custom domains changed: the others reload it and drop every cached target. Also sent
   * by an instance that could not announce some of its writes, once it can again.
   */
  publishDomainsChanged(): Promise<void>
  /** Receives what *other* instances publish; `listening` tells whether messages can arrive at all. */
  subscribe(handlers: InvalidationHandlers): void
  close(): Promise<void>
}

export interface InvalidationHandlers {
  link(domain: string, path: string): void
  domainsChanged(): void
  /**
   * False when messages may be missed (the connection is down or reconnecting), true once
   * listening again. Whatever was cached meanwhile may be stale.
   */
  listening(listening: boolean): void
}
