import { fdatasync, open, close } from 'node:fs'
import { promisify } from 'node:util'

const openFile = promisify(open)
const syncFile = promisify(fdatasync)
const closeFile = promisify(close)

interface Waiter {
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * Makes the writer connection's commits durable off the event loop (docs/adr/0019-wal-synced-off-the-event-loop.md).
 * The connection runs `synchronous = NORMAL`, so a COMMIT appends its frames to the write-ahead log
 * without waiting for the disk; `durable()` then flushes the log file from libuv's thread pool. An
 * fdatasync covers every write to the file before it began, so callers that arrive while one runs
 * wait for the next, and share it: one flush per round of commits, however many there were.
 */
export class WalSync {
  #fd: Promise<number> | undefined
  #syncing = false
  #waiting: Waiter[] = []
  #idle: Promise<void> = Promise.resolve()

  /** `file`: the database's `-wal` file, which SQLite keeps (truncated, never removed) while a connection is open. */
  constructor(
    private readonly file: string,
    private readonly flush: (fd: number) => Promise<void> = syncFile,
  ) {}

  /** Resolves once everything written to the log before the call is on disk; rejects if the flush fails. */
  durable(): Promise<void> {
    const done = new Promise<void>((resolve, reject) => this.#waiting.push({ resolve, reject }))
    if (!this.#syncing) this.#idle = this.#run()
    return done
  }

  /** Waits for the flushes under way, then closes the file. */
  async close(): Promise<void> {
    await this.#idle
    const fd = this.#fd
    this.#fd = undefined
    if (fd !== undefined) await closeFile(await fd).catch(() => {})
  }

  async #run(): Promise<void> {
    this.#syncing = true
    while (this.#waiting.length > 0) {
      const round = this.#waiting
      this.#waiting = []
      try {
        this.#fd ??= openFile(this.file, 'r').catch((error: unknown) => {
          this.#fd = undefined
          throw error
        })
        await this.flush(await this.#fd)
        for (const waiter of round) waiter.resolve()
      } catch (cause) {
        // SQLite's own code for the same failure under synchronous = FULL: the writes may not be on disk.
        const error = Object.assign(new Error('disk I/O error: the write-ahead log could not be flushed to disk', { cause }), { code: 'SQLITE_IOERR_FSYNC' })
        for (const waiter of round) waiter.reject(error)
      }
    }
    this.#syncing = false
  }
}
