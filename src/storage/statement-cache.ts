import type { Database as SQLiteDatabase, Statement } from 'better-sqlite3'
import type { SqliteDatabase, SqliteStatement } from 'kysely'
import { LRUCache } from 'lru-cache'

/**
 * Kysely's SQLite driver prepares every statement anew, and preparing costs as much as running a
 * point query (a large multi-row insert costs far more). The SQL that Kysely compiles repeats — the
 * same text with other parameters — so prepared statements are kept in a bounded LRU keyed by their
 * text, one cache per connection (docs/performance.md, "The click pipeline"). Sharing a statement is
 * safe because better-sqlite3 runs each one to completion synchronously, and Linkline never streams
 * results (an iterator would hold its statement).
 */
export function withStatementCache(sqlite: SQLiteDatabase, maxStatements = 500): SqliteDatabase {
  const statements = new LRUCache<string, Statement>({ max: maxStatements })
  return {
    close: () => {
      statements.clear()
      sqlite.close()
    },
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql)
      if (!statement) {
        statement = sqlite.prepare(sql)
        statements.set(sql, statement)
      }
      return statement as unknown as SqliteStatement
    },
  }
}
