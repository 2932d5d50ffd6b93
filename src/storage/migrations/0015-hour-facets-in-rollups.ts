import { sql, type Kysely } from 'kysely'

/** The tables as this migration finds them (and the columns it adds); tests write the rows it moves through these. */
export interface TablesBefore {
  facets_compaction: { id: number; days_before: number; rollups: number }
  link_click_rollups: {
    link_id: string
    hour: number
    total_clicks: number
    human_clicks: number
    bot_clicks: number
    qr_scans: number
    unique_visitors: number
    facets: string | null
  }
  link_click_facets: { link_id: string; granularity: 'hour' | 'day'; period_start: number; counts: string }
}

/**
 * Two changes that spare the click writer's roll-up a row and a read per link and hour (see
 * docs/performance.md, "The click pipeline"):
 * - An hour's breakdowns move into that hour's rollup row (`link_click_rollups.facets`, the same JSON as
 *   `link_click_facets.counts`, null without human visits): a roll-up writes them with the counters, in
 *   one upsert instead of two. `link_click_facets` keeps the day rows.
 * - `facets_compaction.rollups` counts the roll-ups of every instance: a writer that finds it one above
 *   its own last roll-up knows that no other writer changed a breakdown since, so what it remembers of
 *   the hour rows it wrote is still what the table holds (click-rollup.ts, WrittenFacets).
 */
export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as Kysely<TablesBefore>
  await db.schema
    .alterTable('facets_compaction')
    .addColumn('rollups', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema.alterTable('link_click_rollups').addColumn('facets', 'text').execute()
  await db
    .updateTable('link_click_rollups')
    .set({
      facets: sql<
        string | null
      >`(select f.counts from link_click_facets f where f.link_id = link_click_rollups.link_id and f.granularity = 'hour' and f.period_start = link_click_rollups.hour)`,
    })
    .execute()
  // Roll-ups always wrote an hour's rollup row with its breakdowns; a breakdown row without one (written
  // by hand, or by a tool) keeps its counts in a rollup row of zero clicks.
  await db
    .insertInto('link_click_rollups')
    .columns(['link_id', 'hour', 'total_clicks', 'human_clicks', 'bot_clicks', 'qr_scans', 'unique_visitors', 'facets'])
    .expression((eb) =>
      eb
        .selectFrom('link_click_facets as f')
        .select((s) => [
          'f.link_id',
          'f.period_start',
          ...(['total_clicks', 'human_clicks', 'bot_clicks', 'qr_scans', 'unique_visitors'] as const).map((c) => s.lit(0).as(c)),
          'f.counts',
        ])
        .where('f.granularity', '=', 'hour')
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('link_click_rollups as r').select('r.hour').whereRef('r.link_id', '=', 'f.link_id').whereRef('r.hour', '=', 'f.period_start'))),
        ),
    )
    .execute()
  await db.deleteFrom('link_click_facets').where('granularity', '=', 'hour').execute()
}
