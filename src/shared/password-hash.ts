import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

// scrypt with N = 2^14, r = 8, p = 1 (16 MiB, ~50-150 ms of one libuv thread): the cost is written into
// each hash, so that it can be raised later without breaking the stored ones.
const COST = { N: 16_384, r: 8, p: 1 } as const
export const KEY_LENGTH = 32
export const SCRYPT_MAXMEM = 64 * 1024 * 1024

/** Computes a scrypt key: on a libuv thread (the default), or elsewhere (scrypt-thread.ts). */
export type Derive = (password: string, salt: Buffer, options: ScryptOptions) => Promise<Buffer>

const onLibuv: Derive = (password, salt, options) =>
  new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem: SCRYPT_MAXMEM }, (error, key) => (error ? reject(error) : resolve(key))),
  )

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url. */
export async function hashPassword(password: string, derive: Derive = onLibuv): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, COST)
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

/** Whether `password` matches `stored`, compared in constant time; false for a hash it cannot read. */
export async function verifyPassword(password: string, stored: string, derive: Derive = onLibuv): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false
  const expected = Buffer.from(hash, 'base64url')
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) })
  return key.length === expected.length && timingSafeEqual(key, expected)
}

/**
 * Whether `stored` is a hash as hashPassword writes it, and one that verifyPassword can compute: an
 * import takes a link's hash only in this form (salt of 16 bytes, key of 32) and at no lower cost
 * than ours, and never one whose cost would exceed the memory the check allows.
 */
export function isPasswordHash(stored: string): boolean {
  const match = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9_-]{22})\$([A-Za-z0-9_-]{43})$/.exec(stored)
  if (match === null) return false
  const [n, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const powerOfTwo = (n & (n - 1)) === 0
  return powerOfTwo && n >= COST.N && r >= 1 && p >= 1 && 128 * n * r <= 32 * 1024 * 1024 && n * r * p <= 2 ** 22
}
