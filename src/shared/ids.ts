import { monotonicFactory } from 'ulid'
import { randomByte } from './random-pool.js'

// ulid draws from the byte pool (random-pool.ts) rather than its default, one OpenSSL call per character.
// A byte divided by 256 is a uniform fraction in [0, 1): ulid's 32 characters each get exactly 8 of the 256 values.
const ulid = monotonicFactory(() => randomByte() / 256)

/** Prefixed, time-ordered, URL-safe ids: `lnk_01JD…`. Monotonic within one millisecond. */
export const newId = (prefix: 'lnk' | 'tok' | 'conv' | 'msg' | 'ses' | 'whk' | 'evt' | 'dlv' | 'blk' | 'clj' | 'usr' | 'inv' | 'rst' | 'stp' | 'aud') =>
  `${prefix}_${ulid()}`

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/**
 * Random base62 string from the CSPRNG's byte pool (random-pool.ts: a random path per create no longer
 * costs an OpenSSL call), without modulo bias (bytes >= 248 are drawn again).
 */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    const byte = randomByte()
    if (byte < 248) out += BASE62[byte % 62]
  }
  return out
}
