import { setTimeout as sleep } from 'node:timers/promises'
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely'
import { isSqliteBusy } from './errors.js'

/** How long a statement waits for another connection's write transaction before it fails with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000
const MAX_PAUSE_MS = 50

/**
 * Kysely's SQLite dialect, for a database that two connections write: the server's and the click
 * writer thread's. SQLite's own busy_timeout waits inside the call, which on the server's thread
 * would freeze every request for as long as the other connection writes; here busy_timeout is 0 and
 * a statement that finds the database locked is tried again after an asynchronous pause, so the
 * event loop keeps serving. Transactions begin IMMEDIATE: they take the write lock up front, so
 * that one which read first cannot fail half-way when it comes to write (SQLITE_BUSY_SNAPSHOT).
 */
export class ConcurrentSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig

  constructor(config: SqliteDialectConfig) {
    super(config)
    this.#config = config
  }

  override createDriver(): Driver {
    return new ConcurrentSqliteDriver(this.#config)
  }
}

class ConcurrentSqliteDriver extends SqliteDriver {
  /** SQLite has one connection per driver: it is wrapped once, not on every query. */
  #connection: DatabaseConnection | undefined

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection()
    this.#connection ??= {
      executeQuery: (query) => whenUnlocked(() => connection.executeQuery(query)),
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    }
    return this.#connection
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
}

async function whenUnlocked<T>(run: () => Promise<T>): Promise<T> {
  const deadline = performance.now() + BUSY_TIMEOUT_MS
  for (let pause = 1; ; pause = Math.min(2 * pause, MAX_PAUSE_MS)) {
    try {
      return await run()
    } catch (error) {
      if (!isSqliteBusy(error) || performance.now() + pause > deadline) throw error
      await sleep(pause)
    }
  }
}
