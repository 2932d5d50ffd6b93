import type { BatchSlot } from '../stats/visit-batch.js'
import type { Controls } from './link-controls.js'
import type { Preview } from './link-previews.js'

export interface RedirectTarget {
  readonly linkId: string
  readonly destination: string
  /** 301, 302, 307 or 308. */
  readonly status: number
  /** Absent when the link uses no control (link-controls.ts): the redirect's fast path. */
  readonly controls?: Controls
  /** Where the click buffer's open batch lists the link (its own bookkeeping, stats/visit-batch.ts). */
  readonly clickSlot: BatchSlot
  /** Set when the link's statistics are public: `<short URL>+` then leads to their page (redirect.handler.ts). */
  readonly publicStats?: boolean
  /** Set when the link has a social preview: only then does the redirect ask whether a visit is a crawler's (link-previews.ts). */
  readonly preview?: Preview | undefined
}

/**
 * How long a cached 404 is trusted (docs/api/redirect.md#decisions): a process that writes to the database without
 * telling this one (the CLI without Redis) makes a path exist that this cache holds as missing.
 */
export const NOT_FOUND_TTL_MS = 5000

/** A cached answer, in the nested maps and in the clock's ring. */
interface Entry {
  readonly domain: string
  readonly path: string
  target: RedirectTarget | false
  /** When a negative entry stops being trusted (monotonic ms); unused for a target. */
  expires: number
  /** Read since the clock's hand last passed it. */
  used: boolean
  /** Still in the maps (false once invalidated or evicted: its slot is free). */
  live: boolean
}

/**
 * The in-process cache of (domain, path) → target, negative entries included. Correctness rests on
 * two rules: every write invalidates the keys it touched after it commits, and a fill that raced
 * with an invalidation is dropped (the generation check), so a stale row never lands after the
 * invalidation that should have removed it. A size of 0 disables the cache; `setEnabled(false)`
 * suspends it while invalidations from other instances could be missed (it starts enabled).
 *
 * Every redirect reads it, so a hit is two Map lookups (domain, then path) and a flag set, nothing
 * else: no key string built per request, no recency list relinked (lru-cache with `domain + path`
 * keys cost 0.3–0.6 µs per hit, a sixth of what the redirect adds to a bare server). Eviction is the
 * CLOCK approximation of least-recently-used: once `maxEntries` are held, a new entry takes the
 * slot of the first one, going round, that was not read since the hand last passed it. Negative
 * entries alone expire (NOT_FOUND_TTL_MS): only a miss reads the time, never a hit on a link.
 */
export function createRedirectCache(maxEntries: number, options: { notFoundTtlMs?: number; now?: () => number } = {}) {
  const notFoundTtl = options.notFoundTtlMs ?? NOT_FOUND_TTL_MS
  const now = options.now ?? (() => performance.now())
  let entries = new Map<string, Map<string, Entry>>()
  let ring: Entry[] = []
  let hand = 0
  let generation = 0
  let enabled = maxEntries > 0

  function remove(entry: Entry): void {
    entry.live = false
    entries.get(entry.domain)?.delete(entry.path)
  }

  function add(domain: string, path: string, target: RedirectTarget | false): void {
    let paths = entries.get(domain)
    if (paths === undefined) entries.set(domain, (paths = new Map()))
    const expires = target === false ? now() + notFoundTtl : 0
    const known = paths.get(path)
    if (known !== undefined) {
      known.target = target
      known.expires = expires
      return
    }
    const entry: Entry = { domain, path, target, expires, used: false, live: true }
    paths.set(path, entry)
    if (ring.length < maxEntries) {
      ring.push(entry)
      return
    }
    // Each entry passed loses its second chance, so the hand stops within one turn.
    for (let victim = ring[hand] as Entry; victim.live && victim.used; victim = ring[hand] as Entry) {
      victim.used = false
      hand = (hand + 1) % maxEntries
    }
    const victim = ring[hand] as Entry
    if (victim.live) remove(victim)
    ring[hand] = entry
    hand = (hand + 1) % maxEntries
  }

  function drop(): void {
    generation++
    entries = new Map()
    ring = []
    hand = 0
  }

  return {
    get(domain: string, path: string): RedirectTarget | false | undefined {
      if (!enabled) return undefined
      const entry = entries.get(domain)?.get(path)
      if (entry === undefined) return undefined
      if (entry.target === false && entry.expires <= now()) {
        remove(entry)
        return undefined
      }
      entry.used = true
      return entry.target
    },
    /** Take before the lookup; pass to `fill` after it. */
    generation: () => generation,
    fill(domain: string, path: string, target: RedirectTarget | false, seenGeneration: number): void {
      if (enabled && seenGeneration === generation) add(domain, path, target)
    },
    invalidate(domain: string, path: string): void {
      generation++
      const entry = entries.get(domain)?.get(path)
      if (entry !== undefined) remove(entry)
    },
    clear: drop,
    /** Suspending or resuming drops every entry: nothing cached before or during a gap is trusted. */
    setEnabled(value: boolean): void {
      enabled = value && maxEntries > 0
      drop()
    },
  }
}
export type RedirectCache = ReturnType<typeof createRedirectCache>
