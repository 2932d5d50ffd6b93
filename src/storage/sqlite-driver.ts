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
import { GroupCommit, type GroupConnection } from './group-commit.js'

/**
 * How long a write may wait for SQLite's write lock, counted from when it was issued (its wait for
 * the other writes of this process included): then it fails with SQLITE_BUSY, which the API answers
 * 503 with Retry-After. Long enough for the click writer thread's largest commit, short enough that a
 * lock held elsewhere (another process) turns into prompt errors rather than a queue of stalled writes.
 */
export const WRITE_WAIT_MS = 2000
const MAX_PAUSE_MS = 50
/** Statements that SQLite refuses inside a transaction, or that must not join one: run between groups. */
const OUTSIDE_TRANSACTIONS = /^\s*(pragma|vacuum|attach|detach)\b/i

/**
 * Kysely's SQLite dialect for a server database in WAL mode, on two connections: plain SELECTs run on
 * a read-only connection at once (WAL readers never wait for a writer), everything else on the
 * writer connection, one statement or transaction at a time. So a write that waits for the lock
 * (the click writer thread commits, another process holds it) never holds up a read, a cache-miss
 * redirect included. SQLite's own busy_timeout would sleep inside the call and freeze the event loop:
 * here it is 0, and a locked database is tried again after asynchronous pauses. Transactions begin
 * IMMEDIATE: they take the write lock up front, so that one which read first cannot fail half-way
 * when it comes to write (SQLITE_BUSY_SNAPSHOT), and their reads see their own writes. Writes commit
 * in groups (group-commit.ts): each transaction, or write outside one, is a savepoint of a transaction
 * shared with the writes queued behind it, and learns that it is committed with the group's one COMMIT.
 */
export class ConcurrentSqliteDialect implements Dialect {
  /**
   * `inTransaction`: whether the writer connection has a transaction open (better-sqlite3's `inTransaction`);
   * `durable`: resolves once the writer's commits so far are on disk (wal-sync.ts).
   */
  constructor(private readonly connections: { writer: SqliteDatabase; reader: SqliteDatabase; inTransaction: () => boolean; durable: () => Promise<void> }) {}

  createDriver(): Driver {
    const { writer, reader, inTransaction, durable } = this.connections
    return new ConcurrentSqliteDriver(writer, reader, { inTransaction, durable })
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

/** One per acquisition: while it runs a transaction it is a writer of the group on the writer connection. */
interface RoutedConnection extends DatabaseConnection {
  inTransaction: boolean
}

class ConcurrentSqliteDriver implements Driver {
  /** Every write of the writer connection goes through the group commit (group-commit.ts, docs/adr/0015-group-commit.md). */
  readonly #group: GroupCommit

  constructor(
    private readonly writer: SqliteDatabase,
    private readonly reader: SqliteDatabase,
    writerState: Pick<GroupConnection, 'inTransaction' | 'durable'>,
  ) {
    this.#group = new GroupCommit(
      {
        // A COMMIT can meet a reader's lock at checkpoint time, a BEGIN another process's: waited for as a statement would.
        exec: async (statement, deadline) => {
          await whenUnlocked(() => run(this.writer, CompiledQuery.raw(statement)), deadline)
        },
        ...writerState,
      },
      () => performance.now() + WRITE_WAIT_MS,
    )
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection: RoutedConnection = {
      inTransaction: false,
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        if (connection.inTransaction) return this.#noted(() => run<R>(this.writer, query))
        if (query.query.kind === 'SelectQueryNode') return whenUnlocked(() => run<R>(this.reader, query), performance.now() + WRITE_WAIT_MS)
        const deadline = performance.now() + WRITE_WAIT_MS
        if (OUTSIDE_TRANSACTIONS.test(query.sql)) return this.#group.alone(deadline, () => whenUnlocked(() => run<R>(this.writer, query), deadline))
        return this.#group.write(deadline, () => run<R>(this.writer, query))
      },
      streamQuery: () => {
        throw new Error('streaming is not supported by the SQLite driver')
      },
    }
    return connection
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#group.begin(performance.now() + WRITE_WAIT_MS)
    ;(connection as RoutedConnection).inTransaction = true
  }

  /** Resolves once the group's COMMIT holds the transaction's writes. */
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    ;(connection as RoutedConnection).inTransaction = false
    await this.#group.commit()
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // Kysely rolls back after a failed commit too: the writer has left the group by then.
    if (!(connection as RoutedConnection).inTransaction) return
    ;(connection as RoutedConnection).inTransaction = false
    await this.#group.rollback()
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await this.#group.drain()
    this.reader.close()
    this.writer.close()
  }

  /** A statement of a transaction: its error is kept, in case it ended the transaction (SQLITE_FULL, SQLITE_IOERR). */
  async #noted<R>(statement: () => Promise<QueryResult<R>>): Promise<QueryResult<R>> {
    try {
      return await statement()
    } catch (error) {
      this.#group.noteError(error)
      throw error
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
