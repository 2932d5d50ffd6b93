/**
 * Group commit on one connection (docs/adr/0015-group-commit.md). Writers take turns, first come,
 * first served, as before; but a writer whose turn ends does not commit on its own: its work was a
 * savepoint inside a transaction that the group shares, and the next writer waiting joins the same
 * transaction. The group commits, once, when nobody waits any more (after one pause of the event
 * loop, for writers on their way; while the last group's flush runs, when it ends, or after
 * `FLUSH_WAIT_MS` at most) or when it holds `MAX_MEMBERS` writers or has been open for `MAX_OPEN_MS`. Each writer's `commit()` resolves only
 * after that COMMIT returned and the connection says that it is on disk (`durable`: a flush off the
 * event loop, ADR 0019). A writer that fails rolls back to its own savepoint: its writes are undone,
 * the group's others stay. Only an error that ends the whole transaction (the disk full, an I/O
 * error) or a failing COMMIT fails every writer of the group, none of them answered yet.
 */
export const MAX_MEMBERS = 256
export const MAX_OPEN_MS = 50
/**
 * How long a group stays open, holding the write lock, for a flush under way: other processes wait
 * for that lock (a CLI command up to WRITE_WAIT_MS), and a flush on a busy disk can take seconds.
 */
export const FLUSH_WAIT_MS = 500
const SAVEPOINT = 'linkline_group_member'

/** The connection as the group drives it: `exec` runs one statement (waiting for a lock held elsewhere until `deadline`). */
export interface GroupConnection {
  exec(statement: string, deadline: number): Promise<void>
  /** Whether the connection has a transaction open (SQLite ends it itself on some errors). */
  inTransaction(): boolean
  /** Resolves once every COMMIT so far is on disk. */
  durable(): Promise<void>
}

export interface Waiter {
  resolve: () => void
  reject: (error: unknown) => void
}

export class GroupCommit {
  readonly #turn = new WaitQueue()
  /** Released writers, waiting for the group's COMMIT. */
  #released: Waiter[] = []
  #open = false
  #members = 0
  #openedAt = 0
  #pausing = false
  /** The last error of a statement of the running writer: what ended the transaction, when SQLite ended it. */
  #lastError: unknown
  /** Settles once the last committed group's writers have been told. */
  #told: Promise<void> = Promise.resolve()
  /** Flushes asked for and not yet returned. */
  #flushing = 0
  /** The open group waits for the flush under way to commit (or for `#flushWait`, whichever ends first). */
  #commitAfterFlush = false
  #flushWait: NodeJS.Timeout | undefined

  constructor(
    private readonly connection: GroupConnection,
    private readonly commitDeadline: () => number,
  ) {}

  /** Waits for the turn (until `deadline`), opens the group's transaction unless open, and the writer's savepoint. */
  async begin(deadline: number): Promise<void> {
    await this.#join(deadline, true)
  }

  /** The turn, the group's transaction, and (`savepoint`) the writer's savepoint: a writer of the group. */
  async #join(deadline: number, savepoint: boolean): Promise<void> {
    await this.#turn.acquire(deadline)
    try {
      if (!this.#open) {
        await this.connection.exec('begin immediate', deadline)
        this.#open = true
        this.#members = 0
        this.#openedAt = performance.now()
      }
      if (savepoint) await this.connection.exec(`savepoint ${SAVEPOINT}`, deadline)
      this.#members++
      this.#lastError = undefined
    } catch (error) {
      this.#passTurn()
      throw error
    }
  }

  /** A statement of the running writer failed with `error` (kept in case it ended the transaction). */
  noteError(error: unknown): void {
    this.#lastError = error
  }

  /** The writer's work is done: kept in the group; resolves once the group's COMMIT holds it, rejects if that fails. */
  async commit(): Promise<void> {
    try {
      await this.connection.exec(`release ${SAVEPOINT}`, Infinity)
    } catch (error) {
      this.#lastError = error
      await this.rollback()
      throw error
    }
    return this.#leave()
  }

  /** The running writer is done and kept in the group: the turn passes on; resolves once the group is on disk. */
  #leave(): Promise<void> {
    const committed = new Promise<void>((resolve, reject) => this.#released.push({ resolve, reject }))
    this.#passTurn()
    return committed
  }

  /** The writer failed: its writes are undone, the group goes on without them. */
  async rollback(): Promise<void> {
    try {
      if (this.connection.inTransaction()) {
        await this.connection.exec(`rollback to ${SAVEPOINT}`, Infinity)
        await this.connection.exec(`release ${SAVEPOINT}`, Infinity)
      }
    } finally {
      this.#passTurn()
    }
  }

  /**
   * One statement outside a transaction: a writer of its own in the group, without a savepoint. A
   * failing statement is undone by SQLite itself, the transaction's other writes kept; one that ends
   * the transaction is seen as any writer's is.
   */
  async write<T>(deadline: number, work: () => Promise<T>): Promise<T> {
    await this.#join(deadline, false)
    let result: T
    try {
      result = await work()
    } catch (error) {
      this.#lastError = error
      this.#passTurn()
      throw error
    }
    await this.#leave()
    return result
  }

  /**
   * A statement that may not run inside a transaction (a PRAGMA that changes the safety level, VACUUM):
   * run in its turn, between groups.
   */
  async alone<T>(deadline: number, work: () => Promise<T>): Promise<T> {
    await this.#turn.acquire(deadline)
    try {
      if (this.#open) await this.#end()
      return await work()
    } finally {
      this.#turn.release()
    }
  }

  /** Waits until every write issued so far is committed, and keeps the turn: for closing the connection. */
  async drain(): Promise<void> {
    await this.#turn.acquire(Infinity)
    // The turn came to us as to a writer of an open group: end the group without joining it.
    if (this.#open) await this.#end()
    await this.#told
  }

  /** After a writer: the next one joins, or the group pauses for late arrivals once, or commits. */
  #passTurn(): void {
    if (!this.#open) return this.#turn.release()
    if (!this.connection.inTransaction()) {
      // SQLite ended the transaction itself (SQLITE_FULL, SQLITE_IOERR): every write of the group is lost.
      const cause = this.#lastError ?? new Error('the database ended the transaction of a group of writes')
      tell(this.#close(), cause)
      return this.#turn.release()
    }
    const room = this.#members < MAX_MEMBERS && performance.now() - this.#openedAt < MAX_OPEN_MS
    if (room && this.#turn.waiting > 0) return this.#turn.release()
    if (room && this.#flushing > 0) {
      // The disk is busy with the last group: this one gathers the writers that come meanwhile, and
      // commits when the flush ends (one COMMIT, and one flush, for all of them).
      if (!this.#commitAfterFlush) this.#flushWait = setTimeout(() => this.#commitWaiting(), FLUSH_WAIT_MS)
      this.#commitAfterFlush = true
      return this.#turn.release()
    }
    if (room && !this.#pausing) {
      this.#pausing = true
      setImmediate(() => {
        this.#pausing = false
        if (this.#turn.waiting > 0) this.#turn.release()
        else void this.#commit()
      })
      return
    }
    void this.#commit()
  }

  async #commit(): Promise<void> {
    try {
      await this.#end()
    } finally {
      this.#turn.release()
    }
  }

  /**
   * Commits the group (or, should the COMMIT fail, rolls it back), and tells its writers once the
   * COMMIT is on disk. The turn passes on at once: the next group's writers run during the flush.
   */
  async #end(): Promise<void> {
    const released = this.#close()
    try {
      await this.connection.exec('commit', this.commitDeadline())
    } catch (error) {
      if (this.connection.inTransaction()) await this.connection.exec('rollback', Infinity).catch(() => {})
      return tell(released, error)
    }
    this.#flushing++
    this.#told = this.connection
      .durable()
      .then(
        () => tell(released, undefined),
        (error: unknown) => tell(released, error),
      )
      .finally(() => this.#flushed())
  }

  /** A flush ended: a group left open for it commits now. */
  #flushed(): void {
    if (--this.#flushing === 0) this.#commitWaiting()
  }

  /** The group left open for a flush commits, in its turn: the flush ended, or `FLUSH_WAIT_MS` passed. */
  #commitWaiting(): void {
    if (!this.#commitAfterFlush) return
    this.#stopWaiting()
    void this.#turn.acquire(Infinity).then(() => (this.#open ? this.#commit() : this.#turn.release()))
  }

  #stopWaiting(): void {
    clearTimeout(this.#flushWait)
    this.#commitAfterFlush = false
  }

  /** Ends the group: its released writers, to be told how it ended. */
  #close(): Waiter[] {
    const released = this.#released
    this.#released = []
    this.#open = false
    this.#stopWaiting()
    return released
  }
}

/** Tells waiters that what they wait for is done (`error` undefined) or failed. */
export function tell(writers: Waiter[], error: unknown): void {
  for (const waiter of writers) {
    if (error === undefined) waiter.resolve()
    else waiter.reject(error)
  }
}

/** The connection's turn-taking: first come, first served, and a waiter gives up at its deadline. */
class WaitQueue {
  #held = false
  readonly #waiting: (() => void)[] = []

  get waiting(): number {
    return this.#waiting.length
  }

  async acquire(deadline: number): Promise<void> {
    if (!this.#held) {
      this.#held = true
      return
    }
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      const grant = () => {
        clearTimeout(timer)
        resolve()
      }
      if (Number.isFinite(deadline)) {
        timer = setTimeout(
          () => {
            this.#waiting.splice(this.#waiting.indexOf(grant), 1)
            reject(Object.assign(new Error('the database stayed locked by other writes'), { code: 'SQLITE_BUSY' }))
          },
          Math.max(0, deadline - performance.now()),
        )
      }
      this.#waiting.push(grant)
    })
  }

  /** Hands the turn to the next waiter, if any. */
  release(): void {
    const next = this.#waiting.shift()
    if (next) next()
    else this.#held = false
  }
}
