import type { Kysely } from 'kysely'

interface Tables {
  link_click_facets: { link_id: string; granularity: string; period_start: number; counts: string }
  facets_compaction: { id: number; days_before: number }
}

/**
 * Day breakdowns are no longer added to by every roll-up: a day's row is built from its
 * hour rows once the day is over (click-rollup.ts, compactDays). `facets_compaction` holds the one
 * watermark: every day before `days_before` has its day rows; later days are read from hour rows.
 * Until now every roll-up kept the day rows whole, today's included: the latest day that has one
 * is the first that the compaction builds again (from its hour rows, which are complete as well).
 */
export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as Kysely<Tables>
  await db.schema
    .createTable('facets_compaction')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('days_before', 'bigint', (c) => c.notNull())
    .execute()
  const latest = await db
    .selectFrom('link_click_facets')
    .select((eb) => eb.fn.max('period_start').as('day'))
    .where('granularity', '=', 'day')
    .executeTakeFirst()
  await db
    .insertInto('facets_compaction')
    .values({ id: 1, days_before: Number(latest?.day ?? 0) })
    .execute()
}
