import type { Generated, Selectable } from 'kysely'

/**
 * Batches of classified visits not yet rolled up: the durable form of a visit between a flush (every
 * second) and the roll-up into the tables below (every few seconds). `data` is a VisitColumns in JSON.
 */
export interface ClickJournalTable {
  id: string
  /** The writer that appended it: each rolls up its own; another one's, only when it is stale (a crashed instance). */
  instance: string
  created_at: number
  visits: number
  data: string
}

/**
 * Per writer, the last of its journal rows counted in the statistics: those up to it wait only for their
 * click blocks, which a later roll-up writes (with every row it then takes) before it deletes them.
 */
export interface ClickJournalMarksTable {
  instance: string
  rolled_through: string
}

/**
 * A link's recorded visits of one hour from one roll-up that writes blocks (every few roll-ups: those of
 * the rows it takes), oldest first, for the clicks export: a BlockColumns in JSON. Numbered by the
 * database in the order written (migration 0017).
 */
export interface ClickBlocksTable {
  id: Generated<number>
  link_id: string
  start_at: number
  end_at: number
  clicks: number
  /** The roll-up's JSON (BlockColumns); empty in a compacted row. */
  data: string
  /** A compacted row's visits (block-pack.ts); null in a row the roll-up wrote (migration 0029). */
  packed: Uint8Array | null
  /** 0 as the roll-up wrote it, 1 a link's hour compacted, 2 a link's day (block-compaction.ts). */
  level: Generated<number>
}

export interface LinkClickRollupsTable {
  link_id: string
  hour: number
  total_clicks: number
  human_clicks: number
  bot_clicks: number
  qr_scans: number
  unique_visitors: number
  last_human_click_at: number | null
  /** The hour's human clicks per breakdown dimension and value, as `link_click_facets.counts`; null without any. */
  facets: string | null
}
export type RollupRow = Selectable<LinkClickRollupsTable>

/**
 * Human clicks per breakdown dimension and value of a link in one UTC day, all dimensions in one row:
 * `counts` is `{"browser": {"Firefox": 3}, …}` in JSON (zero counts left out). A day's row exists once
 * the day is over, built from its hours' (`link_click_rollups.facets`: FacetsCompactionTable). Hour rows
 * lived here too until migration 0015 moved them; since, only an instance of an older release writes
 * one (a rolling upgrade), and readers add them to the rollups' (docs/operations.md).
 */
export interface LinkClickFacetsTable {
  link_id: string
  granularity: 'hour' | 'day'
  period_start: number
  counts: string
}

/**
 * One row (id 1): every UTC day before `days_before` has its day rows in link_click_facets; later days
 * are read from their hours only. `rollups` counts the roll-ups of all instances (each adds one).
 */
export interface FacetsCompactionTable {
  id: number
  days_before: number
  rollups: number
}

export interface LinkDailyVisitorsTable {
  link_id: string
  day: number
  visitor_key: string
}

export interface ClickSaltsTable {
  day: number
  salt: string
}

/**
 * The links of a workspace together, per hour (migration 0022): the sums of their `link_click_rollups`
 * rows, kept by the same roll-up, so that the overview of every link reads one row per hour instead of
 * every link's. A deleted link's hours are taken out when it is purged (links.purger.ts).
 */
export interface WorkspaceClickRollupsTable {
  owner_id: string
  hour: number
  total_clicks: number
  human_clicks: number
  bot_clicks: number
  qr_scans: number
  /** The sum of the links' unique visitors: someone who visits two links counts twice. */
  unique_visitors: number
  last_human_click_at: number | null
  /** Human clicks per dimension and value, as `link_click_rollups.facets`; null without any. */
  facets: string | null
  /**
   * The hour's links with the most human clicks, as JSON `[["lnk_…", 12], …]` (at most TOP_LINKS_KEPT,
   * workspace-rollup.ts), each with the link's count of the hour; null without any.
   */
  top_links: string | null
  /** No link left out of `top_links` had more human clicks in the hour than this (the overview's top links rely on it). */
  top_bound: number
}

/**
 * A workspace's breakdowns and busiest links of a UTC day that is over (migration 0022), built from its
 * hours when the day's compaction runs (click-rollup.ts, compactDays), as link_click_facets' day rows
 * are: a range reads its whole days from these and the rest from the hours. The day's busiest links are
 * counted exactly from the links' rollups.
 */
export interface WorkspaceClickDaysTable {
  owner_id: string
  day: number
  facets: string | null
  top_links: string | null
  top_bound: number
}
