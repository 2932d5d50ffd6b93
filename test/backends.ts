/**
 * The databases every integration suite runs against: SQLite always; PostgreSQL when
 * TEST_DATABASE_URL is set, with Redis when TEST_REDIS_URL is set too (CI sets both). Each test
 * server gets a database (a schema on PostgreSQL) and a Redis key prefix of its own.
 */
export type Backend = 'sqlite' | 'postgres'

export const backends: Backend[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']

/** `skip` options for the suites that only make sense on PostgreSQL (and Redis): a reason, or false. */
export const needsPostgres: string | false = process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL (set by .ci/run)'
export const needsPostgresAndRedis: string | false =
  process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL ? false : 'needs TEST_DATABASE_URL and TEST_REDIS_URL (set by .ci/run)'
