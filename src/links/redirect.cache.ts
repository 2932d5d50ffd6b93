import { LRUCache } from 'lru-cache'
import type { BatchSlot } from '../stats/visit-batch.js'
import type { Controls } from './link-controls.js'

export interface RedirectTarget {
  readonly linkId: string
  readonly destination: string
  /** 301, 302, 307 or 308. */
  readonly status: number
  /** Absent when the link uses no control (link-controls.ts): the redirect's fast path. */
  readonly controls?: Controls
  /** Where the click buffer's open batch lists the link (its own bookkeeping, stats/visit-batch.ts). */
  readonly clickSlot: BatchSlot
}

/**
 * The in-process cache of (domain, path) → target, negative entries included. Correctness rests on
 * two rules: every write invalidates the keys it touched after it commits, and a fill that raced
 * with an invalidation is dropped (the generation check), so a stale row never lands after the
 * invalidation that should have removed it. A size of 0 disables the cache; `setEnabled(false)`
 * suspends it while invalidations from other instances could be missed (it starts enabled).
 */
export function createRedirectCache(maxEntries: number) {
  const entries = maxEntries > 0 ? new LRUCache<string, RedirectTarget | false>({ max: maxEntries }) : undefined
  let generation = 0
  let enabled = true
  const key = (domain: string, path: string) => `${domain}${path}`

  return {
    get: (domain: string, path: string): RedirectTarget | false | undefined => (enabled ? entries?.get(key(domain, path)) : undefined),
    /** Take before the lookup; pass to `fill` after it. */
    generation: () => generation,
    fill(domain: string, path: string, target: RedirectTarget | false, seenGeneration: number): void {
      if (entries && enabled && seenGeneration === generation) entries.set(key(domain, path), target)
    },
    invalidate(domain: string, path: string): void {
      generation++
      entries?.delete(key(domain, path))
    },
    clear(): void {
      generation++
      entries?.clear()
    },
    /** Suspending or resuming drops every entry: nothing cached before or during a gap is trusted. */
    setEnabled(value: boolean): void {
      enabled = value
      generation++
      entries?.clear()
    },
  }
}
export type RedirectCache = ReturnType<typeof createRedirectCache>
