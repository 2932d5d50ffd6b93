import type { Kysely } from 'kysely'

/**
 * The click pipeline's tables. Timestamps are epoch milliseconds, flags integers 0/1, so that one
 * set of statements runs on SQLite and PostgreSQL. Every table hangs off `links` with ON DELETE
 * CASCADE: deleting a link deletes its statistics.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const linkId = 'link_id'
  // Append-only raw visits, pruned after the retention period.
  await db.schema
    .createTable('clicks')
    .addColumn(linkId, 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('clicked_at', 'bigint', (c) => c.notNull())
    .addColumn('is_bot', 'integer', (c) => c.notNull())
    .addColumn('is_qr', 'integer', (c) => c.notNull())
    .addColumn('referrer', 'text')
    .addColumn('browser', 'text')
    .addColumn('os', 'text')
    .addColumn('device', 'text')
    .addColumn('country', 'text')
    .addColumn('visitor_key', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('clicks_link_clicked_at').on('clicks').columns([linkId, 'clicked_at']).execute()
  await db.schema.createIndex('clicks_clicked_at').on('clicks').column('clicked_at').execute()

  // Counters per link per hour: what the statistics endpoint reads. Never pruned.
  await db.schema
    .createTable('link_click_rollups')
    .addColumn(linkId, 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('total_clicks', 'bigint', (c) => c.notNull())
    .addColumn('human_clicks', 'bigint', (c) => c.notNull())
    .addColumn('bot_clicks', 'bigint', (c) => c.notNull())
    .addColumn('qr_scans', 'bigint', (c) => c.notNull())
    .addColumn('unique_visitors', 'bigint', (c) => c.notNull())
    .addColumn('last_human_click_at', 'bigint')
    .addPrimaryKeyConstraint('link_click_rollups_pk', [linkId, 'hour'])
    .execute()

  // Human clicks per link and value of each breakdown dimension (referrer, browser, os, device,
  // country), counted per hour and again per UTC day: a range reads whole days from the day rows and
  // only its ragged ends from the hour rows, 24 times fewer rows than hours alone.
  await db.schema
    .createTable('link_click_breakdowns')
    .addColumn(linkId, 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('granularity', 'text', (c) => c.notNull())
    .addColumn('period_start', 'bigint', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('clicks', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('link_click_breakdowns_pk', [linkId, 'granularity', 'period_start', 'dimension', 'value'])
    .execute()

  // Who was already counted as a unique visitor of a link on a UTC day (insert-or-ignore decides).
  await db.schema
    .createTable('link_daily_visitors')
    .addColumn(linkId, 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('visitor_key', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('link_daily_visitors_pk', [linkId, 'day', 'visitor_key'])
    .execute()
  await db.schema.createIndex('link_daily_visitors_day').on('link_daily_visitors').column('day').execute()

  // One random salt per UTC day, shared by every instance, deleted after the day (so keys cannot be recomputed).
  await db.schema
    .createTable('click_salts')
    .addColumn('day', 'bigint', (c) => c.primaryKey())
    .addColumn('salt', 'text', (c) => c.notNull())
    .execute()
}
