import { dayOf, hourOf } from './classify.js'
import type { LinkClickBreakdownsTable, LinkClickRollupsTable, NewClickRow } from './stats.table.js'

/** The breakdown dimensions, each read from one column of a click. Missing values get a label of their own. */
export const DIMENSIONS = {
  referrer: (c: NewClickRow) => c.referrer ?? 'direct',
  browser: (c: NewClickRow) => c.browser ?? 'unknown',
  os: (c: NewClickRow) => c.os ?? 'unknown',
  device: (c: NewClickRow) => c.device ?? 'unknown',
  country: (c: NewClickRow) => c.country ?? 'unknown',
} as const
export type Dimension = keyof typeof DIMENSIONS

export const visitorId = (linkId: string, day: number, visitorKey: string) => `${linkId} ${day} ${visitorKey}`

/**
 * Sums a batch of clicks into per-(link, hour) counters and per-(link, hour or day, dimension, value)
 * human counts, one row per key (so that each upsert statement touches a key once). A human click
 * adds a unique visitor when `firstVisitOfDay` says it is the visitor's first on that link that UTC day.
 */
export function rollUp(clicks: readonly NewClickRow[], firstVisitOfDay: Set<string>) {
  const rollups = new Map<string, LinkClickRollupsTable>()
  const breakdowns = new Map<string, LinkClickBreakdownsTable>()
  for (const click of clicks) {
    const hour = hourOf(click.clicked_at)
    const key = `${click.link_id} ${hour}`
    let rollup = rollups.get(key)
    if (!rollup) {
      rollup = { link_id: click.link_id, hour, total_clicks: 0, human_clicks: 0, bot_clicks: 0, qr_scans: 0, unique_visitors: 0, last_human_click_at: null }
      rollups.set(key, rollup)
    }
    rollup.total_clicks++
    if (click.is_bot) {
      rollup.bot_clicks++
      continue
    }
    rollup.human_clicks++
    rollup.qr_scans += click.is_qr
    rollup.last_human_click_at = Math.max(rollup.last_human_click_at ?? 0, click.clicked_at)
    if (firstVisitOfDay.delete(visitorId(click.link_id, dayOf(click.clicked_at), click.visitor_key))) rollup.unique_visitors++
    for (const [dimension, valueOf] of Object.entries(DIMENSIONS)) {
      const value = valueOf(click)
      for (const [granularity, periodStart] of [['hour', hour], ['day', dayOf(hour)]] as const) {
        const breakdownKey = `${click.link_id} ${granularity} ${periodStart} ${dimension} ${value}`
        const row = breakdowns.get(breakdownKey)
        if (row) row.clicks++
        else breakdowns.set(breakdownKey, { link_id: click.link_id, granularity, period_start: periodStart, dimension, value, clicks: 1 })
      }
    }
  }
  // Sorted by key: concurrent flushes of several instances then lock rows in the same order (no deadlock).
  return { rollups: sortedByKey(rollups), breakdowns: sortedByKey(breakdowns) }
}

export function sortedByKey<T>(rows: Map<string, T>): T[] {
  return [...rows.keys()].sort().map((key) => rows.get(key) as T)
}
