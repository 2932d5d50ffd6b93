import { mkdirSync } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Config } from '../config.js'
import { postgresAdapter, sqliteAdapter, type DialectAdapter, type DialectName } from './dialect.js'
import { isSqliteBusy } from './errors.js'
import type { Database } from './schema.js'
import { ConcurrentSqliteDialect } from './sqlite-driver.js'
import { WalSync } from './wal-sync.js'
import { withStatementCache } from './statement-cache.js'
import { explainSqliteFault, sqliteWriteProblem } from './write-faults.js'

export type Db = Kysely<Database>

/** `/readyz` answers within this, reachable or not: an orchestrator's probe must not hang. */
const PING_TIMEOUT_MS = 2000
const CLIENT_TIMEOUT_MARGIN_MS = 2000
/**
 * Each SQLite connection's page cache, in KiB (negative: SQLite's unit for a size rather than pages):
 * 4 MiB instead of the driver's 16. A server has four connections (the writer, the reader, the click
 * writer's, the destination checker's); a page not in the cache is read from the operating system's,
 * which holds the file once for all of them (ADR 0017).
 */
export const SQLITE_CACHE_SIZE = -4096
export type { DialectName }

export interface Storage {
  readonly db: Db
  readonly dialect: DialectName
  /** What differs between the databases (storage/dialect.ts); `adapter.sharedAcrossInstances` above all. */
  readonly adapter: DialectAdapter
  /** True when the database answers a trivial query (for /readyz). */
  ping(): Promise<boolean>
  /**
   * SQLite: the error that stops writes now (no room, with `room` enough free space too; no
   * permission), or undefined (storage/write-faults.ts). PostgreSQL: undefined (its faults are outages).
   */
  writeProblem(room: boolean): Promise<unknown>
  /** A log line and its fields that say what to fix, for a write fault (SQLite); undefined for any other error. */
  explain(error: unknown): { message: string; fields: Record<string, unknown> } | undefined
  /**
   * Makes this process the one server of the database, until close(); throws if another server holds
   * it. SQLite only (one process serves a file; the CLI may run beside it); PostgreSQL takes many.
   */
  claimServer(): void
  close(): Promise<void>
}

// int8 (bigint) columns hold epoch milliseconds and counters, far below 2^53: parse them as numbers.
pg.types.setTypeParser(20, (value) => Number(value))

/** Tests only: `sqliteWriter` receives the serving writer connection, to make faults reproducible (PRAGMA max_page_count, query_only). */
export interface StorageOptions {
  sqliteWriter?: (connection: SQLite.Database) => void
  /** Tests only: flushes the open write-ahead log in place of its `datasync()` (wal-sync.ts), to hold or fail a flush. */
  walFlush?: (log: FileHandle) => Promise<void>
}

export function openStorage(config: Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'databaseStatementTimeoutMs'>, options: StorageOptions = {}): Storage {
  const url = config.databaseUrl
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), options)
  return openPostgres(url, config.databasePoolSize, config.databaseStatementTimeoutMs)
}

function openSqlite(path: string, options: StorageOptions): Storage {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const sqlite = new SQLite(path)
  // A server's database: WAL lets readers run beside the writer. Every commit is durable through a
  // crash of the process *and* of the machine: a write is acknowledged only once the log is flushed,
  // which wal-sync.ts does off the event loop, so the COMMIT itself need not wait for the disk (ADR 0019).
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  const wal = new WalSync(`${path}-wal`, options.walFlush)
  // A locked database is waited for asynchronously, by the driver (sqlite-driver.ts).
  sqlite.pragma('busy_timeout = 0')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma(`cache_size = ${SQLITE_CACHE_SIZE}`)
  // Plain SELECTs run on a second connection, which never waits behind a write (sqlite-driver.ts).
  const reader = new SQLite(path)
  reader.pragma('busy_timeout = 0')
  reader.pragma('query_only = ON')
  reader.pragma(`cache_size = ${SQLITE_CACHE_SIZE}`)
  options.sqliteWriter?.(sqlite)
  const db = new Kysely<Database>({
    dialect: new ConcurrentSqliteDialect({
      writer: withStatementCache(sqlite),
      reader: withStatementCache(reader),
      inTransaction: () => sqlite.inTransaction,
      durable: () => wal.durable(),
    }),
  })
  let claim: SQLite.Database | undefined
  return {
    db,
    dialect: 'sqlite',
    adapter: sqliteAdapter,
    ping: async () => sqlite.open && sqlite.prepare('select 1').get() !== undefined,
    writeProblem: (room) => sqliteWriteProblem(db, path, room),
    explain: (error) => explainSqliteFault(path, error),
    claimServer() {
      // An exclusive lock on a marker database beside the file, held for the process's life: the
      // operating system releases it when the process dies, however it dies.
      const marker = new SQLite(`${path}.server-lock`, { timeout: 0 })
      try {
        marker.pragma('locking_mode = EXCLUSIVE')
        marker.exec('create table if not exists server (pid integer); begin exclusive; delete from server; insert into server values (' + process.pid + ')')
      } catch (error) {
        marker.close()
        if (!isSqliteBusy(error)) throw error
        throw new Error(`another Linkline server is already serving ${path}: stop it first (the linkline CLI may run beside it)`, { cause: error })
      }
      claim = marker
    },
    close: async () => {
      await db.destroy()
      await wal.close()
      claim?.close()
    },
  }
}

function openPostgres(url: string, poolSize: number, statementTimeoutMs: number): Storage {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    statement_timeout: statementTimeoutMs || undefined,
    // A connection whose packets vanish (a dead host, a black-holed route) answers nothing, not even
    // the server-side timeout: the client gives up a little after it, and TCP keep-alive ends the socket.
    query_timeout: statementTimeoutMs ? statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS : undefined,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    connectionTimeoutMillis: 5000,
  })
  // A client that loses its connection emits 'error': on the pool while idle, on the client itself
  // while checked out (its query then rejects and the request gets a 503). Without a listener either
  // would end the process; the pool discards the broken client and the next checkout connects anew.
  pool.on('error', () => {})
  pool.on('connect', (client) => client.on('error', () => {}))
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return {
    db,
    dialect: 'postgres',
    adapter: postgresAdapter,
    ping: async () => {
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS)
      })
      try {
        return await Promise.race([pool.query('select 1').then(() => true), timedOut])
      } catch {
        return false
      } finally {
        clearTimeout(timer)
      }
    },
    writeProblem: async () => undefined,
    explain: () => undefined,
    claimServer: () => {},
    close: () => db.destroy(),
  }
}
