import { setTimeout as sleep } from 'node:timers/promises'
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type SqliteDatabase,
} from 'kysely'
import { isSqliteBusy } from './errors.js'

/**
 * How long a write may wait for SQLite's write lock, counted from when it was issued (its wait for
 * the other writes of this process included): then it fails with SQLITE_BUSY, which the API answers
 * 503 with Retry-After. Long enough for the click writer thread's largest commit, short enough that a
 * lock held elsewhere (another process) turns into prompt errors rather than a queue of stalled writes.
 */
export const WRITE_WAIT_MS = 2000
const MAX_PAUSE_MS = 50

/**
 * Kysely's SQLite dialect for a server database in WAL mode, on two connections: plain SELECTs run on
 * a read-only connection at once (WAL readers never wait for a writer), everything else on the
 * writer connection, one statement or transaction at a time. So a write that waits for the lock
 * (the click writer thread commits, another process holds it) never holds up a read, a cache-miss
 * redirect included. SQLite's own busy_timeout would sleep inside the call and freeze the event loop:
 * here it is 0, and a locked database is tried again after asynchronous pauses. Transactions begin
 * IMMEDIATE: they take the write lock up front, so that one which read first cannot fail half-way
 * when it comes to write (SQLITE_BUSY_SNAPSHOT), and their reads see their own writes.
 */
export class ConcurrentSqliteDialect implements Dialect {
  /** `inTransaction`: whether the writer connection has a transaction open (better-sqlite3's `inTransaction`). */
  constructor(private readonly connections: { writer: SqliteDatabase; reader: SqliteDatabase; inTransaction: () => boolean }) {}

  createDriver(): Driver {
    return new ConcurrentSqliteDriver(this.connections.writer, this.connections.reader, this.connections.inTransaction)
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler()
  }
  createAdapter() {
    return new SqliteAdapter()
  }
  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db)
  }
}

/** One per acquisition: while it runs a transaction it owns the writer connection. */
interface RoutedConnection extends DatabaseConnection {
  inTransaction: boolean
}

class ConcurrentSqliteDriver implements Driver {
  readonly #writeLock = new WaitQueue()

  constructor(
    private readonly writer: SqliteDatabase,
    private readonly reader: SqliteDatabase,
    private readonly writerInTransaction: () => boolean,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection: RoutedConnection = {
      inTransaction: false,
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        if (connection.inTransaction) return run<R>(this.writer, query)
        if (query.query.kind === 'SelectQueryNode') return whenUnlocked(() => run<R>(this.reader, query), performance.now() + WRITE_WAIT_MS)
        return this.#exclusive((deadline) => whenUnlocked(() => run<R>(this.writer, query), deadline))
      },
      streamQuery: () => {
        throw new Error('streaming is not supported by the SQLite driver')
      },
    }
    return connection
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const deadline = performance.now() + WRITE_WAIT_MS
    await this.#writeLock.acquire(deadline)
    try {
      await whenUnlocked(() => run(this.writer, CompiledQuery.raw('begin immediate')), deadline)
    } catch (error) {
      this.#writeLock.release()
      throw error
    }
    ;(connection as RoutedConnection).inTransaction = true
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#endTransaction(connection as RoutedConnection, 'commit')
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite ends the transaction itself on some errors (SQLITE_FULL, SQLITE_IOERR): a ROLLBACK then
    // fails with "no transaction is active", and Kysely would throw that instead of the cause.
    if (!this.writerInTransaction()) return this.#endTransaction(connection as RoutedConnection, undefined)
    await this.#endTransaction(connection as RoutedConnection, 'rollback')
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    this.reader.close()
    this.writer.close()
  }

  async #endTransaction(connection: RoutedConnection, statement: 'commit' | 'rollback' | undefined): Promise<void> {
    try {
      // A COMMIT can meet a reader's lock at checkpoint time: wait for it as a statement would.
      if (statement !== undefined) await whenUnlocked(() => run(this.writer, CompiledQuery.raw(statement)), performance.now() + WRITE_WAIT_MS)
    } finally {
      connection.inTransaction = false
      this.#writeLock.release()
    }
  }

  async #exclusive<T>(work: (deadline: number) => Promise<T>): Promise<T> {
    const deadline = performance.now() + WRITE_WAIT_MS
    await this.#writeLock.acquire(deadline)
    try {
      return await work(deadline)
    } finally {
      this.#writeLock.release()
    }
  }
}

/** Runs one statement as Kysely's own SQLite connection does. */
async function run<R>(db: SqliteDatabase, { sql, parameters }: CompiledQuery): Promise<QueryResult<R>> {
  const statement = db.prepare(sql)
  if (statement.reader) return { rows: statement.all(parameters) as R[] }
  const { changes, lastInsertRowid } = statement.run(parameters)
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] }
}

async function whenUnlocked<T>(attempt: () => Promise<T>, deadline: number): Promise<T> {
  for (let pause = 1; ; pause = Math.min(2 * pause, MAX_PAUSE_MS)) {
    try {
      return await attempt()
    } catch (error) {
      if (!isSqliteBusy(error) || performance.now() + pause > deadline) throw error
      await sleep(pause)
    }
  }
}

/** The writer connection's turn-taking: first come, first served, and a waiter gives up at its deadline. */
class WaitQueue {
  #held = false
  readonly #waiting: (() => void)[] = []

  async acquire(deadline: number): Promise<void> {
    if (!this.#held) {
      this.#held = true
      return
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(
        () => {
          this.#waiting.splice(this.#waiting.indexOf(grant), 1)
          reject(Object.assign(new Error('the database stayed locked by other writes'), { code: 'SQLITE_BUSY' }))
        },
        Math.max(0, deadline - performance.now()),
      )
      this.#waiting.push(grant)
    })
  }

  /** Hands the lock to the next waiter, if any. */
  release(): void {
    const next = this.#waiting.shift()
    if (next) next()
    else this.#held = false
  }
}
