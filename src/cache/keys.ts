/** Every Redis key and pub/sub channel Linkline uses, built from the configured prefix. */
export function redisKeys(prefix: string) {
  return {
    /** Prefix of the per-token rate-limit counters (the token id follows). */
    rateLimit: `${prefix}rate-limit:`,
    /** Prefix of the shared maxClicks counts (the link id follows; links/shared-click-limit.ts). */
    clickLimit: `${prefix}click-limit:`,
    /** The channel on which instances announce writes that invalidate redirect caches. */
    invalidations: `${prefix}invalidations`,
  }
}
