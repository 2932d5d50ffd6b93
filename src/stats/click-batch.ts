import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../storage/schema.js'
import { bucketStart } from '../storage/dialect.js'
import { DAY_MS, HOUR_MS } from './classify.js'
import type { ClicksTable } from './stats.table.js'

/**
 * The breakdown dimensions: the click column each one reads, and the label of a missing value.
 * Breakdowns count human clicks only.
 */
export const DIMENSIONS = {
  referrer: { column: 'referrer', missing: 'direct' },
  browser: { column: 'browser', missing: 'unknown' },
  os: { column: 'os', missing: 'unknown' },
  device: { column: 'device', missing: 'unknown' },
  country: { column: 'country', missing: 'unknown' },
} as const
export type Dimension = keyof typeof DIMENSIONS

/**
 * The temporary tables of one batch, private to the writer's connection and emptied before its
 * transaction commits: the classified clicks, the visitors first seen in the batch (with the time of
 * their first visit), and the human clicks counted per link, hour and combination of dimension values.
 */
type StagingTables = {
  click_batch: ClicksTable
  batch_visitors: { link_id: string; day: number; visitor_key: string; first_at: number }
  batch_cube: { link_id: string; hour: number; referrer: string; browser: string; os: string; device: string; country: string; clicks: number }
}
export type Staging = Kysely<Database & StagingTables>

/** Creates the staging tables on this connection unless they exist (a temporary table lives as long as its connection). */
export async function stage(trx: Transaction<Database>): Promise<Staging> {
  const staging = trx.withTables<StagingTables>()
  // The columns of `clicks`, without its constraints.
  await staging.schema
    .createTable('click_batch')
    .temporary()
    .ifNotExists()
    .as(
      staging
        .selectFrom('clicks')
        .selectAll()
        .where(sql<boolean>`1 = 0`),
    )
    .execute()
  await staging.schema
    .createTable('batch_visitors')
    .temporary()
    .ifNotExists()
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('visitor_key', 'text', (c) => c.notNull())
    .addColumn('first_at', 'bigint', (c) => c.notNull())
    .execute()
  let cube = staging.schema
    .createTable('batch_cube')
    .temporary()
    .ifNotExists()
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
  for (const dimension of Object.keys(DIMENSIONS)) cube = cube.addColumn(dimension, 'text', (c) => c.notNull())
  await cube.addColumn('clicks', 'bigint', (c) => c.notNull()).execute()
  return staging
}

/** The start of the UTC hour / day of an epoch-ms column, in SQL (both divide epoch time evenly). */
const hourStart = (column: string) => bucketStart(column, HOUR_MS)
const dayStart = (column: string) => bucketStart(column, DAY_MS)

/**
 * Writes what `click_batch` holds (in the caller's transaction): the database does the counting, so
 * the cost per click in this process does not grow with the number of rollup rows a click touches.
 * Rollups and breakdowns are increments (`x = x + excluded.x`), each key once per statement.
 */
export async function writeStagedBatch(staging: Staging): Promise<void> {
  // A link deleted since the visit: its clicks are dropped, not a reason to fail the batch.
  await staging
    .deleteFrom('click_batch')
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('links').select('links.id').whereRef('links.id', '=', 'click_batch.link_id').where('links.deleted_at', 'is', null))),
    )
    .execute()
  const columns = ['link_id', 'clicked_at', 'is_bot', 'is_qr', 'referrer', 'browser', 'os', 'device', 'country', 'visitor_key'] as const
  await staging.insertInto('clicks').columns(columns).expression(staging.selectFrom('click_batch').select(columns)).execute()

  // Unique visitors: a human visitor counts once per link and UTC day, in the hour of their first visit.
  await staging
    .insertInto('batch_visitors')
    .columns(['link_id', 'day', 'visitor_key', 'first_at'])
    .expression((eb) =>
      eb
        .selectFrom('click_batch')
        .select((s) => ['link_id', dayStart('clicked_at').as('day'), 'visitor_key', s.fn.min('clicked_at').as('first_at')])
        .where('is_bot', '=', 0)
        .groupBy(['link_id', dayStart('clicked_at'), 'visitor_key']),
    )
    .execute()
  await staging
    .deleteFrom('batch_visitors')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('link_daily_visitors as v')
          .select('v.link_id')
          .whereRef('v.link_id', '=', 'batch_visitors.link_id')
          .whereRef('v.day', '=', 'batch_visitors.day')
          .whereRef('v.visitor_key', '=', 'batch_visitors.visitor_key'),
      ),
    )
    .execute()
  await staging
    .insertInto('link_daily_visitors')
    .columns(['link_id', 'day', 'visitor_key'])
    .expression(staging.selectFrom('batch_visitors').select(['link_id', 'day', 'visitor_key']))
    .execute()

  // Hourly counters, then the new visitors into the same rows (each statement touches a key once).
  await upsertRollups(
    staging,
    staging
      .selectFrom('click_batch')
      .select((eb) => [
        'link_id',
        hourStart('clicked_at').as('hour'),
        eb.fn.countAll<number>().as('total_clicks'),
        sql<number>`sum(1 - is_bot)`.as('human_clicks'),
        eb.fn.sum<number>('is_bot').as('bot_clicks'),
        sql<number>`sum(is_qr * (1 - is_bot))`.as('qr_scans'),
        eb.lit(0).as('unique_visitors'),
        sql<number | null>`max(case when is_bot = 0 then clicked_at end)`.as('last_human_click_at'),
      ])
      .groupBy(['link_id', hourStart('clicked_at')]),
  )
  await upsertRollups(
    staging,
    staging
      .selectFrom('batch_visitors')
      .select((eb) => [
        'link_id',
        hourStart('first_at').as('hour'),
        eb.lit(0).as('total_clicks'),
        eb.lit(0).as('human_clicks'),
        eb.lit(0).as('bot_clicks'),
        eb.lit(0).as('qr_scans'),
        eb.fn.countAll<number>().as('unique_visitors'),
        sql<number | null>`cast(null as bigint)`.as('last_human_click_at'),
      ])
      .groupBy(['link_id', hourStart('first_at')]),
  )

  // Breakdowns: the human clicks summed once per combination of values, then per dimension and value,
  // by hour and by UTC day.
  await staging
    .insertInto('batch_cube')
    .columns(['link_id', 'hour', ...(Object.keys(DIMENSIONS) as Dimension[]), 'clicks'])
    .expression((eb) =>
      eb
        .selectFrom('click_batch')
        .select((s) => [
          'link_id',
          hourStart('clicked_at').as('hour'),
          ...Object.entries(DIMENSIONS).map(([dimension, { column, missing }]) => s.fn.coalesce(column, s.val(missing)).as(dimension)),
          s.fn.countAll<number>().as('clicks'),
        ])
        .where('is_bot', '=', 0)
        .groupBy(['link_id', hourStart('clicked_at'), ...Object.values(DIMENSIONS).map((d) => d.column)]),
    )
    .execute()
  const perValue = Object.keys(DIMENSIONS).flatMap((dimension) =>
    (['hour', 'day'] as const).map(
      (granularity) =>
        sql`select link_id, ${sql.lit(granularity)} as granularity, ${granularity === 'hour' ? sql.ref('hour') : dayStart('hour')} as period_start, ${sql.lit(dimension)} as dimension, ${sql.ref(dimension)} as value, clicks from batch_cube`,
    ),
  )
  await sql`
    insert into link_click_breakdowns (link_id, granularity, period_start, dimension, value, clicks)
    select link_id, granularity, period_start, dimension, value, sum(clicks) from (${sql.join(perValue, sql` union all `)}) as per_value
    where true
    group by link_id, granularity, period_start, dimension, value
    on conflict (link_id, granularity, period_start, dimension, value) do update set clicks = link_click_breakdowns.clicks + excluded.clicks
  `.execute(staging)

  for (const table of ['click_batch', 'batch_visitors', 'batch_cube'] as const) await staging.deleteFrom(table).execute()
}

type RollupSource = Parameters<ReturnType<Staging['insertInto']>['expression']>[0]

/** Adds the selected counters to the hourly rollups, creating the rows that are missing. */
async function upsertRollups(staging: Staging, source: RollupSource): Promise<void> {
  await staging
    .insertInto('link_click_rollups')
    .columns(['link_id', 'hour', 'total_clicks', 'human_clicks', 'bot_clicks', 'qr_scans', 'unique_visitors', 'last_human_click_at'])
    .expression(source)
    .onConflict((oc) =>
      oc.columns(['link_id', 'hour']).doUpdateSet((eb) => ({
        total_clicks: eb('link_click_rollups.total_clicks', '+', eb.ref('excluded.total_clicks')),
        human_clicks: eb('link_click_rollups.human_clicks', '+', eb.ref('excluded.human_clicks')),
        bot_clicks: eb('link_click_rollups.bot_clicks', '+', eb.ref('excluded.bot_clicks')),
        qr_scans: eb('link_click_rollups.qr_scans', '+', eb.ref('excluded.qr_scans')),
        unique_visitors: eb('link_click_rollups.unique_visitors', '+', eb.ref('excluded.unique_visitors')),
        // max() of two values is spelled differently by each dialect; CASE is not.
        last_human_click_at: eb
          .case()
          .when('excluded.last_human_click_at', '>', eb.fn.coalesce('link_click_rollups.last_human_click_at', eb.lit(0)))
          .then(eb.ref('excluded.last_human_click_at'))
          .else(eb.ref('link_click_rollups.last_human_click_at'))
          .end(),
      })),
    )
    .execute()
}
