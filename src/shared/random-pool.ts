import { randomFillSync } from 'node:crypto'

/**
 * CSPRNG bytes handed out from a pool refilled 4 KiB at a time, for a caller that asks for one byte
 * at a time (ulid asks its generator once per character). Buys: one OpenSSL call per 4,096 bytes
 * instead of one per byte, each with a system call, so that minting an id stays cheap when a roll-up
 * names thousands of click blocks (docs/performance.md, "The click pipeline"). Node's randomUUID
 * pools its bytes the same way.
 */
const pool = Buffer.alloc(4096)
let next = pool.length

export function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool)
    next = 0
  }
  return pool[next++] as number
}
