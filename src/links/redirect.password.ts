import { LRUCache } from 'lru-cache'
import { verifyPassword } from './link-password.js'

/** Wrong passwords allowed per link and client address within WINDOW_MS, before 429. */
export const PASSWORD_TRIES = 10
const WINDOW_MS = 15 * 60 * 1000

/**
 * The password form's guard: a wrong password counts against the link and the client address, and
 * past PASSWORD_TRIES within the window every try is refused before any hash is computed (a correct
 * password too), until the window ends. Kept in this process (bounded: the least recent pairs go
 * first); with several instances each keeps its own count (docs/api.md).
 */
export function createPasswordGate() {
  const failures = new LRUCache<string, { count: number; until: number }>({ max: 100_000 })
  const key = (linkId: string, client: string) => `${linkId}\n${client}`

  return {
    /** Seconds until the pair may try again; 0 when it may now. */
    blockedFor(linkId: string, client: string, now = Date.now()): number {
      const entry = failures.get(key(linkId, client))
      if (entry === undefined || entry.until <= now) return 0
      return entry.count >= PASSWORD_TRIES ? Math.ceil((entry.until - now) / 1000) : 0
    },
    /**
     * Whether the password matches. Every try counts before the hash is computed, and a right one is
     * taken back afterwards: tries sent all at once cannot get past the limit while their hashes run.
     */
    async check(linkId: string, client: string, password: string, hash: string, now = Date.now()): Promise<boolean> {
      const k = key(linkId, client)
      let entry = failures.get(k)
      if (entry === undefined || entry.until <= now) {
        entry = { count: 0, until: now + WINDOW_MS }
        failures.set(k, entry)
      }
      entry.count++
      const right = password.length > 0 && (await verifyPassword(password, hash))
      if (right) entry.count--
      return right
    },
  }
}
export type PasswordGate = ReturnType<typeof createPasswordGate>
