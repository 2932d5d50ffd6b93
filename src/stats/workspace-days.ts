import { chunks } from '../shared/chunks.js'
import { DAY_MS, floorTo } from '../shared/time.js'
import type { Db } from '../storage/database.js'
import type { Transaction } from '../storage/transaction.js'
import { addProfiles } from './rollup.tally.js'
import { addFacets, type Facets, type Profile } from './stats.dimensions.js'
import { TopLinks } from './top-links.js'
import type { AddedHour, LinkHour, WorkspaceHourOf } from './workspace-rollup.js'

/*
 * A workspace's day rows (WorkspaceClickDaysTable): built once the UTC day is over from its hour rows,
 * with the day's busiest links counted exactly from the links' rollups; from then on, whatever changes
 * the day's hours (a late visit, a purge) changes the day row too. All under the roll-up lock.
 */

/** Ids per query. */
const CHUNK = 1000

const dayOf = (ms: number) => floorTo(ms, DAY_MS)
const key = (ownerId: string, day: number) => `${ownerId} ${day}`

/** One page of the workspaces that own links, after `after`, in order: compactDays walks them. */
export async function ownersAfter(db: Db, after: string): Promise<string[]> {
  const rows = await db.selectFrom('links').select('owner_id').distinct().where('owner_id', '>', after).orderBy('owner_id').limit(CHUNK).execute()
  return rows.map((r) => r.owner_id)
}

interface WorkspaceDay {
  owner_id: string
  day: number
  facets: Facets | null
  top: TopLinks
}

/** `facets` less `less`, without the values that reach zero; null when nothing is left. */
export function withoutFacets(facets: Facets, less: Facets): Facets | null {
  for (const [dimension, values] of Object.entries(less) as [keyof Facets, Record<string, number>][]) {
    const counts = facets[dimension]
    if (counts === undefined) continue
    for (const [value, n] of Object.entries(values)) {
      const left = (counts[value] ?? 0) - n
      if (left > 0) counts[value] = left
      else delete counts[value]
    }
    if (Object.keys(counts).length === 0) delete facets[dimension]
  }
  return Object.keys(facets).length === 0 ? null : facets
}

/** The day rows there are for the days of these changes. */
async function readDays(trx: Transaction, changes: readonly WorkspaceHourOf[]): Promise<Map<string, WorkspaceDay>> {
  const days = new Map<string, WorkspaceDay>()
  const owners = [...new Set(changes.map((c) => c.ownerId))]
  const dayList = [...new Set(changes.map((c) => dayOf(c.hour)))]
  for (const part of chunks(owners, CHUNK)) {
    const rows = await trx.selectFrom('workspace_click_days').selectAll().where('owner_id', 'in', part).where('day', 'in', dayList).execute()
    for (const r of rows) {
      const facets = r.facets === null ? null : (JSON.parse(r.facets) as Facets)
      days.set(key(r.owner_id, Number(r.day)), { owner_id: r.owner_id, day: Number(r.day), facets, top: TopLinks.parse(r.top_links, r.top_bound) })
    }
  }
  return days
}

async function writeDays(trx: Transaction | Db, days: Iterable<WorkspaceDay>): Promise<void> {
  const rows = [...days].map((d) => ({
    owner_id: d.owner_id,
    day: d.day,
    facets: d.facets === null ? null : JSON.stringify(d.facets),
    top_links: d.top.toJSON(),
    top_bound: d.top.bound,
  }))
  for (const part of chunks(rows, 500)) {
    await trx
      .insertInto('workspace_click_days')
      .values(part)
      .onConflict((oc) =>
        oc.columns(['owner_id', 'day']).doUpdateSet((eb) => ({
          facets: eb.ref('excluded.facets'),
          top_links: eb.ref('excluded.top_links'),
          top_bound: eb.ref('excluded.top_bound'),
        })),
      )
      .execute()
  }
}

/** Each link's human clicks of `day`, by its rollup hours (a range of their key per link). */
async function linkDayClicks(trx: Transaction | Db, linkIds: readonly string[], day: number): Promise<Map<string, number>> {
  const clicks = new Map<string, number>()
  for (const part of chunks(linkIds, CHUNK)) {
    const rows = await trx
      .selectFrom('link_click_rollups')
      .select((eb) => ['link_id', eb.fn.sum<number | string>('human_clicks').as('n')])
      .where('link_id', 'in', part)
      .where('hour', '>=', day)
      .where('hour', '<', day + DAY_MS)
      .groupBy('link_id')
      .execute()
    for (const r of rows) clicks.set(r.link_id, Number(r.n))
  }
  return clicks
}

/**
 * In the roll-up's transaction, after its rollup writes: visits of a day before `today` go into its day
 * row too (a flush after midnight), each link offered with its count of the day, as writeDayFacets does
 * for the links' day rows. A day the compaction has not built yet is built again from its hours then; a
 * day it has built took every earlier visit, and takes each later one here.
 */
export async function addToDays(trx: Transaction, changes: readonly AddedHour[], profiles: readonly Profile[], today: number): Promise<void> {
  const late = changes.filter((c) => c.hour < today)
  if (late.length === 0) return
  const days = await readDays(trx, late)
  for (const c of late) {
    const k = key(c.ownerId, dayOf(c.hour))
    if (!days.has(k)) days.set(k, { owner_id: c.ownerId, day: dayOf(c.hour), facets: null, top: new TopLinks() })
  }
  const counts = new Map<number, Map<string, number>>()
  for (const day of new Set(late.map((c) => dayOf(c.hour)))) {
    counts.set(day, await linkDayClicks(trx, [...new Set(late.filter((c) => dayOf(c.hour) === day && c.human > 0).map((c) => c.linkId))], day))
  }
  for (const c of late) {
    const day = days.get(key(c.ownerId, dayOf(c.hour))) as WorkspaceDay
    if (c.profiles.size > 0) day.facets = addProfiles(day.facets ?? {}, c.profiles, profiles)
    if (c.human > 0) day.top.offer(c.linkId, counts.get(dayOf(c.hour))?.get(c.linkId) ?? 0)
  }
  await writeDays(trx, days.values())
}

/** With a purge's hours (takeFromWorkspace): out of the day rows built already. */
export async function takeFromDays(trx: Transaction, changes: readonly LinkHour[]): Promise<void> {
  const days = await readDays(trx, changes)
  if (days.size === 0) return
  for (const c of changes) {
    const day = days.get(key(c.ownerId, dayOf(c.hour)))
    if (day === undefined) continue
    if (c.facets !== undefined && day.facets !== null) day.facets = withoutFacets(day.facets, c.facets)
    day.top.remove(c.linkId)
  }
  await writeDays(trx, days.values())
}

/**
 * Builds the workspace's day rows of the UTC days in [from, to) from its hour rows: breakdowns summed;
 * the links kept by any of the hours counted exactly for the day, and the busiest kept. A link kept by
 * none had at most the sum of the hours' bounds: the day's bound is at least that.
 */
export async function compactWorkspaceDays(trx: Transaction | Db, ownerId: string, from: number, to: number): Promise<void> {
  const hours = await trx
    .selectFrom('workspace_click_rollups')
    .select(['hour', 'facets', 'top_links', 'top_bound'])
    .where('owner_id', '=', ownerId)
    .where('hour', '>=', from)
    .where('hour', '<', to)
    .execute()
  const days = new Map<number, { facets: Facets | null; candidates: Set<string>; bounds: number }>()
  for (const h of hours) {
    const day = dayOf(Number(h.hour))
    const d = days.get(day) ?? { facets: null, candidates: new Set<string>(), bounds: 0 }
    if (h.facets !== null) d.facets = addFacets(d.facets ?? {}, JSON.parse(h.facets) as Facets)
    for (const id of TopLinks.parse(h.top_links, 0).counts.keys()) d.candidates.add(id)
    d.bounds += Number(h.top_bound)
    days.set(day, d)
  }
  const rows: WorkspaceDay[] = []
  for (const [day, d] of days) {
    const top = new TopLinks()
    for (const [id, n] of await linkDayClicks(trx, [...d.candidates], day)) if (n > 0) top.offer(id, n)
    top.bound = Math.max(top.bound, d.bounds)
    rows.push({ owner_id: ownerId, day, facets: d.facets, top })
  }
  await writeDays(trx, rows)
}
