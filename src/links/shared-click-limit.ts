import type { Redis } from 'ioredis'

/**
 * Takes one visit of a link's maxClicks in Redis, atomically: the count (first raised to what this
 * instance knows, `seen`, so that a key lost or expired starts from the stored count) is compared
 * with the limit and raised by one only below it. 1: taken; 0: spent. ARGV are kept as strings
 * where they are stored: Lua's numbers print 10^12 as 1e+12.
 */
const TAKE = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[2]) > n then
  redis.call('SET', KEYS[1], ARGV[2])
  n = tonumber(ARGV[2])
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
if n >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
return 1`

/** A count left untouched this long is dropped; by then every visit it held is in the stored count. */
const KEY_TTL_SECONDS = 24 * 60 * 60

/**
 * maxClicks counted across instances (docs/api/redirect.md): with Redis, each human visit of a limited link
 * takes its place in one shared count before it is redirected, so N instances let exactly maxClicks
 * visits through. While Redis is not ready the answer is `undefined` and each instance falls back to
 * its own count (the documented bound).
 */
export function createSharedClickLimit(deps: { redis: Redis; keyPrefix: string; onError: (error: unknown) => void }) {
  const { keyPrefix, onError } = deps
  // Sent by its SHA once Redis knows it (ioredis falls back to the script itself after a NOSCRIPT).
  deps.redis.defineCommand('linklineTakeClick', { numberOfKeys: 1, lua: TAKE })
  const redis = deps.redis as Redis & { linklineTakeClick(key: string, maxClicks: number, seen: number, ttl: number): Promise<number> }
  return {
    /** Whether the visit may pass (true) or the link is spent (false); undefined when Redis cannot say. */
    async take(linkId: string, maxClicks: number, seen: number): Promise<boolean | undefined> {
      if (redis.status !== 'ready') return undefined
      try {
        return (await redis.linklineTakeClick(`${keyPrefix}${linkId}`, maxClicks, seen, KEY_TTL_SECONDS)) === 1
      } catch (error) {
        onError(error)
        return undefined
      }
    },
  }
}
export type SharedClickLimit = ReturnType<typeof createSharedClickLimit>
