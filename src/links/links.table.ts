import type { Generated, Insertable, Selectable, Updateable } from 'kysely'
import type { CreatedByColumns } from '../shared/actor.js'

export type TitleSource = 'page' | 'user'

export interface LinksTable extends CreatedByColumns {
  id: string
  owner_id: string
  domain: string
  path: string
  destination: string
  title: string | null
  /** Where the title came from (migration 0023): `page` (fetched from the destination), `user`, or null before anyone gave one. */
  title_source: TitleSource | null
  created_at: number
  updated_at: number
  /** 301, 302, 307 or 308 (migration 0011); 302 unless written. */
  redirect_type: Generated<number>
  expires_at: number | null
  max_clicks: number | null
  expired_url: string | null
  /** `scrypt$N$r$p$salt$hash` (shared/password-hash.ts); never leaves the service. */
  password_hash: string | null
  /** The rules as JSON text, destinations already normalized. */
  rules: string | null
  /** 1 when anyone may read the link's statistics (migration 0021; docs/api/analytics.md#public-statistics), else 0. */
  public_stats: Generated<number>
  /** The social preview as JSON text (migration 0024; link-previews.ts), or null. */
  preview: string | null
  /** Set when the link was deleted: a tombstone until the background purge removes it (links.purger.ts). */
  deleted_at: number | null
  /** Human visits rolled up so far, all time (migration 0020): added by each click roll-up (stats/click-rollup.ts). */
  clicks: Generated<number>
  /** The latest human visit rolled up, or null before the first. */
  last_clicked_at: number | null
  /** unknown, ok or broken (migration 0025; health/health.check.ts): the destination's verdict. */
  health_status: Generated<HealthStatus>
  /** The last check's final HTTP status, or null (none yet, or no answer). */
  health_http_status: number | null
  /** When the destination was last checked, or null before the first check. */
  health_checked_at: number | null
  /** Why the last check failed (a failure kind), or null. */
  health_error: string | null
  /** Failed checks in a row since the last success: the second makes the link broken. */
  health_failures: Generated<number>
}
export type HealthStatus = 'unknown' | 'ok' | 'broken'
export type LinkRow = Selectable<LinksTable>
export type NewLinkRow = Insertable<LinksTable>
export type LinkRowUpdate = Updateable<LinksTable>

/** Every column of a link, in the order its repeated INSERT binds them: the object's type keeps the list whole. */
export const LINK_COLUMNS = Object.keys({
  id: 0,
  owner_id: 0,
  domain: 0,
  path: 0,
  destination: 0,
  title: 0,
  title_source: 0,
  created_at: 0,
  updated_at: 0,
  redirect_type: 0,
  expires_at: 0,
  max_clicks: 0,
  expired_url: 0,
  password_hash: 0,
  rules: 0,
  public_stats: 0,
  preview: 0,
  deleted_at: 0,
  clicks: 0,
  last_clicked_at: 0,
  health_status: 0,
  health_http_status: 0,
  health_checked_at: 0,
  health_error: 0,
  health_failures: 0,
  created_by_type: 0,
  created_by_id: 0,
  created_by_label: 0,
} satisfies Record<keyof LinkRow, 0>) as (keyof LinkRow)[]

export interface LinkTagsTable {
  link_id: string
  owner_id: string
  tag: string
}

/** SQLite only (migration 0020): each link's number in the search index, `link_search`'s rowid. */
export interface LinkSearchRowsTable {
  row: number
  link_id: string
}

/** SQLite only (migration 0030): links whose search text is not indexed yet; `indexed` 1 when the index holds their old text. */
export interface LinkSearchPendingTable {
  row: number
  indexed: number
}
