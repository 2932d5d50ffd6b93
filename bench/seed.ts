import { sql, type Insertable } from 'kysely'
import { loadConfig } from '../src/config.js'
import { createContainer } from '../src/container.js'
import type { NewLinkRow } from '../src/links/links.table.js'
import { newId } from '../src/shared/ids.js'
import { openStorage, type Db } from '../src/storage/database.js'
import type { Database } from '../src/storage/schema.js'
import { inTransaction } from '../src/storage/transaction.js'
import { createPostgresSchema, type PostgresSchema } from '../test/postgres-schema.js'

/** A bench database on PostgreSQL: a schema of its own, with the Redis that goes with it. */
export type BenchPostgres = PostgresSchema & { redisUrl: string; redisPrefix: string }

/** The one default domain of every bench server; any Host resolves to it. */
export const BENCH_DOMAIN = 'links.bench'
export const BENCH_TOKEN = 'bench-token-0123456789abcdef'
export const BIG_OWNER = 'bench-big'
export const SMALL_OWNER = 'bench-small'

/** Distinct destinations (and titles) among the big owner's links: each filter value matches total/N links. */
export const DESTINATION_VALUES = 1000
export const TITLE_VALUES = 5000
export const destinationOf = (i: number) => `https://shop.example/p/${i % DESTINATION_VALUES}?utm_source=qr`
export const titleOf = (i: number) => `Campaign ${i % TITLE_VALUES}`

/** Rows per INSERT (at most 13 bound values each: well under SQLite's 32766) and per transaction. */
const ROWS_PER_INSERT = 2000
const ROWS_PER_TRANSACTION = 50_000

/**
 * The environment of a Linkline bench server (and of the seeding, so both see the same configuration):
 * a SQLite file, or a database URL (PostgreSQL) with the Redis URL that goes with it.
 */
export function linklineEnv(database: string | BenchPostgres): Record<string, string> {
  return {
    ...(typeof database === 'string'
      ? { DATABASE_URL: `sqlite:${database}` }
      : {
          DATABASE_URL: database.url,
          REDIS_URL: database.redisUrl,
          LINKLINE_REDIS_PREFIX: database.redisPrefix,
          // The files that go beside the data (the webhook secret key): not in the working directory.
          LINKLINE_DATA_DIR: database.dataDir,
        }),
    LINKLINE_DOMAINS: BENCH_DOMAIN,
    // The API benches send far more than the default 1200 requests a minute from one token.
    LINKLINE_RATE_LIMIT: '10000000',
    LOG_LEVEL: 'warn',
    // The seeded destinations are not pages to fetch: no request leaves the machine.
    LINKLINE_PAGE_TITLES: 'off',
  }
}

/** The redirect set: short path → destination, the same for Linkline and the bare server. */
export function redirectLinks(count: number): { path: string; destination: string }[] {
  return Array.from({ length: count }, (_, i) => ({ path: `/r${i.toString(36)}`, destination: `https://shop.example/item/${i}?ref=bench` }))
}

/** Link `i` of a redirect set as a row of SMALL_OWNER's, each created a millisecond after the one before. */
export function redirectLinkRow(links: readonly { path: string; destination: string }[], i: number): Omit<NewLinkRow, 'id'> {
  const link = links[i] as (typeof links)[number]
  return linkRow(SMALL_OWNER, link.path, link.destination, null, Date.UTC(2026, 0, 1) + i)
}

/** Links indexed per transaction after a seed: the server's batches are small to keep requests flowing. */
const SEED_INDEX_BATCH = 20_000

/**
 * Creates and migrates a Linkline database through the composition root, ensures the bench token,
 * and lets `fill` write bulk data straight through Kysely (HTTP would take minutes for a million rows).
 */
export async function prepareDatabase(database: Parameters<typeof linklineEnv>[0], fill: (db: Db) => Promise<void>): Promise<void> {
  const container = createContainer(loadConfig(linklineEnv(database)))
  try {
    // Migrations and the services' state only, no background work: a started container's click writer
    // compacted the blocks being seeded and held the write lock past the seed's wait (SQLITE_BUSY).
    await container.prepare()
    await container.tokens.ensure(BENCH_TOKEN, BIG_OWNER)
    // Seeding only: a crash mid-seed loses a throw-away file, so skip the per-commit fsync.
    if (container.storage.dialect === 'sqlite') await sql`pragma synchronous = off`.execute(container.storage.db)
    await fill(container.storage.db)
    // SQLite's search index of links is written after the writes (ADR 0020): written here whole, so
    // that a server under measurement starts as a steady one does, not with the seed's backlog.
    while ((await container.storage.adapter.indexSearch(container.storage.db, SEED_INDEX_BATCH)) === SEED_INDEX_BATCH);
  } finally {
    await container.close()
  }
}

/** Inserts `count` rows built by `row(i)` into `table`, many rows per INSERT and per transaction. */
export async function insertInBatches<T extends 'links' | 'link_tags' | 'conversations'>(
  db: Db,
  table: T,
  count: number,
  row: (i: number) => Insertable<Database[T]>,
): Promise<void> {
  for (let start = 0; start < count; start += ROWS_PER_TRANSACTION) {
    const end = Math.min(count, start + ROWS_PER_TRANSACTION)
    await inTransaction(db, async (trx) => {
      for (let from = start; from < end; from += ROWS_PER_INSERT) {
        const rows: Insertable<Database[T]>[] = []
        for (let i = from; i < Math.min(end, from + ROWS_PER_INSERT); i++) rows.push(row(i))
        await trx.insertInto(table).values(rows).execute()
      }
    })
  }
}

/** Inserts `count` links built by `row(i)`, each with a fresh time-ordered id. */
export const insertLinks = (db: Db, count: number, row: (i: number) => Omit<NewLinkRow, 'id'>) =>
  insertInBatches(db, 'links', count, (i) => ({ id: newId('lnk'), ...row(i) }))

/** A link row of `owner` created `i` milliseconds after `epoch` (so that the list order is well defined). */
export function linkRow(owner: string, path: string, destination: string, title: string | null, at: number): Omit<NewLinkRow, 'id'> {
  return { owner_id: owner, domain: BENCH_DOMAIN, path, destination, title, created_at: at, updated_at: at }
}

/** Visits recorded (in click blocks) in a database that no server uses any more. */
export async function recordedVisits(database: Parameters<typeof linklineEnv>[0]): Promise<number> {
  const storage = openStorage(loadConfig(linklineEnv(database)))
  try {
    const row = await storage.db
      .selectFrom('click_blocks')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('clicks'), eb.lit(0)).as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  } finally {
    await storage.close()
  }
}

/**
 * A PostgreSQL schema of its own (and a Redis key prefix) for a bench server, on the local services
 * named by TEST_DATABASE_URL and TEST_REDIS_URL (as the tests use them); undefined when either is unset.
 */
export async function benchPostgres(): Promise<BenchPostgres | undefined> {
  const admin = process.env.TEST_DATABASE_URL
  const redisUrl = process.env.TEST_REDIS_URL
  if (admin === undefined || redisUrl === undefined) return undefined
  const schema = await createPostgresSchema(admin, 'bench')
  return { ...schema, redisUrl, redisPrefix: `linkline-bench:${schema.name}:` }
}
