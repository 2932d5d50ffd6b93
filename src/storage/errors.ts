import { isSqliteWriteFault } from './write-faults.js'

/** Driver errors, recognised without asking which driver runs. */
const code = (error: unknown): unknown => (error as { code?: unknown } | null)?.code

export function isUniqueViolation(error: unknown): boolean {
  const c = code(error)
  // SQLite (better-sqlite3) | PostgreSQL
  return c === 'SQLITE_CONSTRAINT_UNIQUE' || c === 'SQLITE_CONSTRAINT_PRIMARYKEY' || c === '23505'
}

/** SQLite: another connection holds the write lock (the server's and the click writer thread's share the file). */
export const isSqliteBusy = (error: unknown): boolean => code(error) === 'SQLITE_BUSY'

/** A transaction lost a race with another one (PostgreSQL serialization failure or deadlock): run it again. */
export function isRetryableConflict(error: unknown): boolean {
  const c = code(error)
  return c === '40001' || c === '40P01'
}

// Socket errors; PostgreSQL: shutting down or starting (57P0x), out of connections (53300), a statement
// over DATABASE_STATEMENT_TIMEOUT_MS (57014); SQLite: the database stayed locked past a write's wait (storage/sqlite-driver.ts).
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '57014',
  'SQLITE_BUSY',
])
// node-postgres reports a lost connection, a pool checkout timeout or its own query timeout with a message and no code.
const UNAVAILABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout)/

/**
 * The database cannot be reached or is too busy right now (a 503, retried by the client), as
 * opposed to a bug. A lost conflict that outlived its retries counts too.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const c = code(error)
  if (typeof c === 'string' && (UNAVAILABLE_CODES.has(c) || c.startsWith('08'))) return true
  // SQLite cannot write for want of room or permission: an operator's fix, not a bug (storage/health.ts).
  if (isSqliteWriteFault(error)) return true
  if (isRetryableConflict(error)) return true
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable)
  if (!(error instanceof Error)) return false
  // A failure wrapped on its way up (a migration that could not connect) keeps its cause.
  return UNAVAILABLE_MESSAGES.test(error.message) || (error.cause !== undefined && isDatabaseUnavailable(error.cause))
}

/** A row names a parent that is not (or no longer) there. */
export function isForeignKeyViolation(error: unknown): boolean {
  const c = code(error)
  // SQLite (better-sqlite3) | PostgreSQL
  return c === 'SQLITE_CONSTRAINT_FOREIGNKEY' || c === '23503'
}
