import { open, type FileHandle } from 'node:fs/promises'
import { tell, type Waiter } from './group-commit.js'

/**
 * Makes the writer connection's commits durable off the event loop (docs/adr/0019-wal-synced-off-the-event-loop.md).
 * The connection runs `synchronous = NORMAL`, so a COMMIT appends its frames to the write-ahead log
 * without waiting for the disk; `durable()` then flushes the log file from libuv's thread pool. An
 * fdatasync covers every write to the file before it began, so callers that arrive while one runs
 * wait for the next, and share it: one flush per round of commits, however many there were.
 */
export class WalSync {
  #log: Promise<FileHandle> | undefined
  #syncing = false
  #waiting: Waiter[] = []
  #idle: Promise<void> = Promise.resolve()

  /** `file`: the database's `-wal` file, which SQLite keeps (truncated, never removed) while a connection is open. */
  constructor(
    private readonly file: string,
    private readonly flush: (log: FileHandle) => Promise<void> = (log) => log.datasync(),
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
    const log = this.#log
    this.#log = undefined
    await (await log)?.close().catch(() => {})
  }

  async #run(): Promise<void> {
    this.#syncing = true
    while (this.#waiting.length > 0) {
      const round = this.#waiting
      this.#waiting = []
      try {
        this.#log ??= open(this.file, 'r').catch((error: unknown) => {
          this.#log = undefined
          throw error
        })
        await this.flush(await this.#log)
        tell(round, undefined)
      } catch (cause) {
        // SQLite's own code for the same failure under synchronous = FULL: the writes may not be on disk.
        const error = Object.assign(new Error('disk I/O error: the write-ahead log could not be flushed to disk', { cause }), { code: 'SQLITE_IOERR_FSYNC' })
        tell(round, error)
      }
    }
    this.#syncing = false
  }
}
