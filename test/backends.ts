/**
 * The databases every integration suite runs against: SQLite always; PostgreSQL when
 * TEST_DATABASE_URL is set (CI sets it). Each test server gets a database of its own.
 */
export type Backend = 'sqlite' | 'postgres'

export const backends: Backend[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']
