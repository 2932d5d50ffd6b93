import type { Derive } from './password-hash.js'
import { createPasswordHashing } from './password-hashing.js'
import { threadsOnDemand } from './threads-on-demand.js'
import type { ScryptTask } from './scrypt.worker.js'

/**
 * scrypt on one worker thread of the lowest priority (scrypt.worker.ts), for people's passwords: a
 * sign-in flood then takes only what the redirect leaves of the CPU, where libuv's threads would
 * compete with it as equals. The thread ends after a minute without work.
 */
export function createScryptThread() {
  const pool = threadsOnDemand(new URL('./scrypt.worker.js', import.meta.url))
  const derive: Derive = async (password, salt, options) => {
    const key = (await pool.run({ password, salt, options } satisfies ScryptTask)) as Uint8Array
    return Buffer.from(key.buffer, key.byteOffset, key.byteLength)
  }
  return { derive, close: () => pool.destroy() }
}

/**
 * Hashing queues (password-hashing.ts) on that thread: password checks (anyone may ask for one) one at
 * a time, started at most every `minIntervalMs`, refused beyond `queueLimit` waiting; new passwords
 * (asked for by someone signed in, or holding a one-time link) in a queue of their own, unpaced.
 */
export function createLowPriorityHashing(options: { queueLimit: number; minIntervalMs: number }) {
  const thread = createScryptThread()
  const checks = createPasswordHashing({ concurrency: 1, ...options, derive: thread.derive })
  const hashes = createPasswordHashing({ concurrency: 1, derive: thread.derive })
  return { ...checks, hash: hashes.hash, close: thread.close }
}
