import type { Insertable, Selectable } from 'kysely'

export interface ClicksTable {
  link_id: string
  clicked_at: number
  is_bot: number
  is_qr: number
  referrer: string | null
  browser: string | null
  os: string | null
  device: string | null
  country: string | null
  visitor_key: string
}
export type NewClickRow = Insertable<ClicksTable>

export interface LinkClickRollupsTable {
  link_id: string
  hour: number
  total_clicks: number
  human_clicks: number
  bot_clicks: number
  qr_scans: number
  unique_visitors: number
  last_human_click_at: number | null
}
export type RollupRow = Selectable<LinkClickRollupsTable>

export interface LinkClickBreakdownsTable {
  link_id: string
  granularity: 'hour' | 'day'
  period_start: number
  dimension: string
  value: string
  clicks: number
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
