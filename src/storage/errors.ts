/** Driver errors, recognised without asking which driver runs. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  // SQLite (better-sqlite3) | PostgreSQL
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505'
}

/** A row names a parent that is not (or no longer) there. */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  // SQLite (better-sqlite3) | PostgreSQL
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503'
}
