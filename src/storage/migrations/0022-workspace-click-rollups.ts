import type { Kysely } from 'kysely'
import type { Database } from '../schema.js'
import { rebuildWorkspaceRollups } from '../../stats/workspace-rollup.js'

/**
 * `workspace_click_rollups`: per workspace and hour, the sums of its links' hourly rollups (counters,
 * breakdowns) and the hour's busiest links, so that the overview of every link (GET /v1/stats) reads
 * one row per hour, not one per link and hour; `workspace_click_days`: the breakdowns and busiest links
 * of each day that is over, as link_click_facets' day rows (docs/adr/0013-workspace-rollups.md). The
 * roll-up and the day's compaction keep them from now on; this fills them from the links' rollups, a
 * workspace at a time, 1,000 links per query.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workspace_click_rollups')
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('total_clicks', 'bigint', (c) => c.notNull())
    .addColumn('human_clicks', 'bigint', (c) => c.notNull())
    .addColumn('bot_clicks', 'bigint', (c) => c.notNull())
    .addColumn('qr_scans', 'bigint', (c) => c.notNull())
    .addColumn('unique_visitors', 'bigint', (c) => c.notNull())
    .addColumn('last_human_click_at', 'bigint')
    .addColumn('facets', 'text')
    .addColumn('top_links', 'text')
    .addColumn('top_bound', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('workspace_click_rollups_pk', ['owner_id', 'hour'])
    .execute()
  await db.schema
    .createTable('workspace_click_days')
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('facets', 'text')
    .addColumn('top_links', 'text')
    .addColumn('top_bound', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('workspace_click_days_pk', ['owner_id', 'day'])
    .execute()
  await rebuildWorkspaceRollups(db as unknown as Kysely<Database>)
}
