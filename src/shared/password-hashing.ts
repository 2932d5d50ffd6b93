import { AppError } from './errors.js'
import { hashPassword, verifyPassword, type Derive } from './password-hash.js'

/** Hashes computed at once (libuv has four threads, which file and DNS work share). */
const CONCURRENCY = 2
/** Most hashes one lane may have waiting; beyond, the work is refused (busy) rather than queued. */
const LANE_LIMIT = 200

/** The lane was full: an owner (or a client of the password form) has too many hashes waiting. */
export class HashingBusy extends AppError {
  constructor() {
    super(429, 'rate_limited', 'too many passwords are waiting to be hashed; retry in a few seconds', 'password', { 'Retry-After': '5' })
    this.name = 'HashingBusy'
  }
}

/**
 * Every scrypt of the process (about 16 MiB and 50-150 ms each: password-hash.ts) runs through here,
 * at most CONCURRENCY at a time, taken in turn from one lane per owner (hashing a new password) and
 * per client address block (checking the password form): one owner's bulk create or one client's
 * flood of tries waits behind itself, and delays anyone else by at most the hashes already running.
 */
export function createPasswordHashing(
  options: { concurrency?: number; laneLimit?: number; queueLimit?: number; derive?: Derive; minIntervalMs?: number } = {},
) {
  const { derive } = options
  // At least this long between the starts of two hashes: a pace that bounds their share of the CPU
  // (and of the memory bandwidth scrypt eats), however many wait.
  const minIntervalMs = options.minIntervalMs ?? 0
  let lastStart = -Infinity
  let paced: NodeJS.Timeout | undefined
  const concurrency = options.concurrency ?? CONCURRENCY
  const laneLimit = options.laneLimit ?? LANE_LIMIT
  // Most hashes waiting in all lanes together: beyond, refused at once (a flood from many addresses).
  const queueLimit = options.queueLimit ?? Infinity
  let waiting = 0
  // Lanes with work waiting, in turn order: a lane served goes to the back.
  const lanes = new Map<string, (() => void)[]>()
  let running = 0

  function pump(): void {
    while (running < concurrency) {
      if (lanes.size === 0 || paced !== undefined) return
      const wait = lastStart + minIntervalMs - Date.now()
      if (wait > 0) {
        paced = setTimeout(() => {
          paced = undefined
          pump()
        }, wait)
        return
      }
      lastStart = Date.now()
      const next = lanes.entries().next()
      if (next.done === true) return
      const [lane, queue] = next.value
      lanes.delete(lane)
      const job = queue.shift() as () => void
      if (queue.length > 0) lanes.set(lane, queue)
      running++
      job()
    }
  }

  function run<T>(lane: string, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (waiting >= queueLimit) return reject(new HashingBusy())
      let queue = lanes.get(lane)
      if (queue === undefined) lanes.set(lane, (queue = []))
      if (queue.length >= laneLimit) return reject(new HashingBusy())
      waiting++
      queue.push(() => {
        waiting--
        work()
          .then(resolve, reject)
          .finally(() => {
            running--
            pump()
          })
      })
      pump()
    })
  }

  return {
    run,
    /** A new password's hash, in the owner's lane. */
    hash: (ownerId: string, password: string) => run(`owner\n${ownerId}`, () => hashPassword(password, derive)),
    /** Whether a password form's try matches, in the lane of the client's address block. */
    verify: (client: string, password: string, stored: string) => run(`client\n${client}`, () => verifyPassword(password, stored, derive)),
  }
}
export type PasswordHashing = ReturnType<typeof createPasswordHashing>
