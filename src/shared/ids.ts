import { randomBytes, randomFillSync } from 'node:crypto'
import { monotonicFactory } from 'ulid'

/**
 * CSPRNG bytes handed out from a pool refilled 4 KiB at a time. ulid asks its generator for one value
 * per character: on its own default, each is a call into OpenSSL (~4 µs, and a getpid system call),
 * so a fresh id cost ~70 µs, and a roll-up that names thousands of click blocks paid it every
 * millisecond. Node's randomUUID pools its bytes the same way.
 */
const pool = Buffer.alloc(4096)
let next = pool.length
function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool)
    next = 0
  }
  return pool[next++] as number
}

// A byte divided by 256 is a uniform fraction in [0, 1): ulid's 32 characters each get exactly 8 of the 256 values.
const ulid = monotonicFactory(() => randomByte() / 256)

/** Prefixed, time-ordered, URL-safe ids: `lnk_01JD…`. Monotonic within one millisecond. */
export const newId = (prefix: 'lnk' | 'tok' | 'conv' | 'msg' | 'ses' | 'whk' | 'evt' | 'dlv' | 'blk' | 'clj') => `${prefix}_${ulid()}`

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Random base62 string from a CSPRNG, without modulo bias (bytes >= 248 are rejected). */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62]
    }
  }
  return out
}
