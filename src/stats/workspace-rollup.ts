import { sql } from 'kysely'
import { chunks } from '../shared/chunks.js'
import type { Db } from '../storage/database.js'
import type { Transaction } from '../storage/transaction.js'
import { addFacets, type Facets, type Profile } from './stats.dimensions.js'
import type { RollupRow, WorkspaceClickRollupsTable } from './stats.table.js'
import { TopLinks } from './top-links.js'
import { addProfiles, type LinkTally } from './rollup.tally.js'
import { addToDays, compactWorkspaceDays, takeFromDays, withoutFacets } from './workspace-days.js'

/*
 * The workspace rollups (migration 0022, WorkspaceClickRollupsTable): per workspace and hour, the sums
 * of its live links' hourly rollups and the hour's busiest links, written in the roll-up's transaction
 * (click-rollup.ts) and taken from when a deleted link is purged. Rows are read, added to in memory
 * and written whole, under the roll-up lock: a workspace has one row per hour, however many links.
 */

/** Rows per statement: 10 values each. */
const CHUNK = 500

/** A link's counts of one hour, as a roll-up adds them or a purge takes them away. */
export interface LinkHour {
  ownerId: string
  linkId: string
  hour: number
  total: number
  human: number
  bot: number
  qr: number
  uniques: number
  lastHuman: number | null
  /** Its human clicks per dimension and value; none without human clicks. */
  facets: Facets | undefined
  /** The link's human clicks of the hour after the change (top_links). */
  humanAfter: number
}

/**
 * What a roll-up added to a link's hour: its human visits per profile of the roll-up's ProfileTable
 * rather than per dimension and value. A workspace-hour sums its links' profiles and expands them once:
 * a facets object per link-hour, added to the workspace's, cost more than the rows with cold links.
 */
export type AddedHour = Omit<LinkHour, 'facets'> & { profiles: ReadonlyMap<number, number> }

/** A link's hourly rollup row, whole, as its workspace's rows take it. */
export function linkHourOf(ownerId: string, r: RollupRow): LinkHour {
  const human = Number(r.human_clicks)
  return {
    ownerId,
    linkId: r.link_id,
    hour: Number(r.hour),
    total: Number(r.total_clicks),
    human,
    bot: Number(r.bot_clicks),
    qr: Number(r.qr_scans),
    uniques: Number(r.unique_visitors),
    lastHuman: r.last_human_click_at === null ? null : Number(r.last_human_click_at),
    facets: r.facets === null ? undefined : (JSON.parse(r.facets) as Facets),
    humanAfter: human,
  }
}

interface WorkspaceHour {
  row: Omit<WorkspaceClickRollupsTable, 'facets' | 'top_links' | 'top_bound'>
  facets: Facets | null
  top: TopLinks
}

const key = (ownerId: string, hour: number) => `${ownerId} ${hour}`
/** The workspace and hour (or day) that a change is of. */
export type WorkspaceHourOf = Pick<LinkHour, 'ownerId' | 'hour'>

function emptyHour(ownerId: string, hour: number): WorkspaceHour {
  const row = { owner_id: ownerId, hour, total_clicks: 0, human_clicks: 0, bot_clicks: 0, qr_scans: 0, unique_visitors: 0, last_human_click_at: null }
  return { row, facets: null, top: new TopLinks() }
}

/** The workspace rows of these (owner, hour) pairs, parsed; a pair without a row gets an empty one. */
async function readHours(trx: Transaction, pairs: readonly WorkspaceHourOf[]): Promise<Map<string, WorkspaceHour>> {
  const hours = new Map<string, WorkspaceHour>()
  for (const p of pairs) if (!hours.has(key(p.ownerId, p.hour))) hours.set(key(p.ownerId, p.hour), emptyHour(p.ownerId, p.hour))
  const owners = [...new Set(pairs.map((p) => p.ownerId))]
  const hourList = [...new Set(pairs.map((p) => p.hour))]
  for (const ownerChunk of chunks(owners, CHUNK)) {
    for (const hourChunk of chunks(hourList, CHUNK)) {
      const rows = await trx.selectFrom('workspace_click_rollups').selectAll().where('owner_id', 'in', ownerChunk).where('hour', 'in', hourChunk).execute()
      for (const r of rows) {
        const k = key(r.owner_id, Number(r.hour))
        // Only pairs asked for: the lists also match other hours of the same workspaces.
        if (!hours.has(k)) continue
        const { facets, top_links, top_bound, ...counters } = r
        hours.set(k, {
          row: {
            ...counters,
            hour: Number(r.hour),
            total_clicks: Number(r.total_clicks),
            human_clicks: Number(r.human_clicks),
            bot_clicks: Number(r.bot_clicks),
            qr_scans: Number(r.qr_scans),
            unique_visitors: Number(r.unique_visitors),
            last_human_click_at: r.last_human_click_at === null ? null : Number(r.last_human_click_at),
          },
          facets: facets === null ? null : (JSON.parse(facets) as Facets),
          top: TopLinks.parse(top_links, top_bound),
        })
      }
    }
  }
  return hours
}

/** Writes the hours whole; an hour left without any click goes. */
async function writeHours(trx: Transaction | Db, hours: Iterable<WorkspaceHour>): Promise<void> {
  const all = [...hours]
  const rows = all
    .filter((h) => h.row.total_clicks > 0)
    .map((h) => ({ ...h.row, facets: h.facets === null ? null : JSON.stringify(h.facets), top_links: h.top.toJSON(), top_bound: h.top.bound }))
  for (const chunk of chunks(rows, CHUNK)) {
    await trx
      .insertInto('workspace_click_rollups')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['owner_id', 'hour']).doUpdateSet((eb) => ({
          total_clicks: eb.ref('excluded.total_clicks'),
          human_clicks: eb.ref('excluded.human_clicks'),
          bot_clicks: eb.ref('excluded.bot_clicks'),
          qr_scans: eb.ref('excluded.qr_scans'),
          unique_visitors: eb.ref('excluded.unique_visitors'),
          last_human_click_at: eb.ref('excluded.last_human_click_at'),
          facets: eb.ref('excluded.facets'),
          top_links: eb.ref('excluded.top_links'),
          top_bound: eb.ref('excluded.top_bound'),
        })),
      )
      .execute()
  }
  for (const h of all.filter((h) => h.row.total_clicks <= 0)) {
    await trx.deleteFrom('workspace_click_rollups').where('owner_id', '=', h.row.owner_id).where('hour', '=', h.row.hour).execute()
  }
}

/** Adds (sign 1) or takes away (sign -1) a link's hour. */
function apply(into: WorkspaceHour, change: LinkHour, sign: 1 | -1): void {
  applyCounts(into, change, sign)
  if (change.facets !== undefined) {
    if (sign === 1) into.facets = addFacets(into.facets ?? {}, change.facets)
    else if (into.facets !== null) into.facets = withoutFacets(into.facets, change.facets)
  }
}

/** Adds or takes away a link's hour, but its breakdowns: its counters, and its place among the busiest links. */
function applyCounts(into: WorkspaceHour, change: Omit<LinkHour, 'facets'>, sign: 1 | -1): void {
  const row = into.row
  row.total_clicks += sign * change.total
  row.human_clicks += sign * change.human
  row.bot_clicks += sign * change.bot
  row.qr_scans += sign * change.qr
  row.unique_visitors += sign * change.uniques
  if (sign === 1 && change.lastHuman !== null && change.lastHuman > (row.last_human_click_at ?? 0)) row.last_human_click_at = change.lastHuman
  if (sign === -1) into.top.remove(change.linkId)
  else if (change.human > 0) into.top.offer(change.linkId, change.humanAfter)
}

/**
 * In the roll-up's transaction, under its lock: adds what it added to links' hours to their workspaces'
 * (and days before `today` to their days'). `profiles`: the roll-up's, which the changes' counts refer to.
 */
export async function addToWorkspaces(trx: Transaction, changes: readonly AddedHour[], profiles: readonly Profile[], today: number): Promise<void> {
  if (changes.length === 0) return
  const hours = await readHours(trx, changes)
  const added = new Map<WorkspaceHour, Map<number, number>>()
  for (const c of changes) {
    const into = hours.get(key(c.ownerId, c.hour)) as WorkspaceHour
    applyCounts(into, c, 1)
    if (c.profiles.size === 0) continue
    let sums = added.get(into)
    if (sums === undefined) added.set(into, (sums = new Map()))
    for (const [id, n] of c.profiles) sums.set(id, (sums.get(id) ?? 0) + n)
  }
  for (const [into, sums] of added) into.facets = addProfiles(into.facets ?? {}, sums, profiles)
  await writeHours(trx, hours.values())
  await addToDays(trx, changes, profiles, today)
}

/** When a deleted link's hourly rollups go (its purge), under the roll-up lock: takes them out of its workspace's hours and days. */
export async function takeFromWorkspace(trx: Transaction, changes: readonly LinkHour[]): Promise<void> {
  if (changes.length === 0) return
  const hours = await readHours(trx, changes)
  for (const c of changes) apply(hours.get(key(c.ownerId, c.hour)) as WorkspaceHour, c, -1)
  await writeHours(trx, hours.values())
  await takeFromDays(trx, changes)
}

/**
 * Builds every workspace's rows again from its links' hourly rollups (migration 0022's backfill): a
 * workspace at a time, its links 1,000 at a time, every hour of its history in memory; then its day
 * rows of the days compacted already. Links deleted and not purged yet count too: their purge takes
 * them out (takeFromWorkspace).
 */
export async function rebuildWorkspaceRollups(db: Db | Transaction): Promise<void> {
  const watermark = await db.selectFrom('facets_compaction').select('days_before').where('id', '=', 1).executeTakeFirst()
  const compactedBefore = Number(watermark?.days_before ?? 0)
  const owners = await db.selectFrom('links').select('owner_id').distinct().execute()
  for (const { owner_id: ownerId } of owners) {
    const hours = new Map<number, WorkspaceHour>()
    for (let after: { created_at: number; id: string } | undefined; ;) {
      let page = db.selectFrom('links').select(['id', 'created_at']).where('owner_id', '=', ownerId)
      // A row value: one range of the (owner_id, created_at, id) index on both databases.
      if (after !== undefined) page = page.where(sql<boolean>`(created_at, id) > (${after.created_at}, ${after.id})`)
      const links = await page.orderBy('created_at').orderBy('id').limit(1000).execute()
      if (links.length === 0) break
      const ids = links.map((l) => l.id)
      for (const r of await db.selectFrom('link_click_rollups').selectAll().where('link_id', 'in', ids).execute()) {
        const hour = Number(r.hour)
        let into = hours.get(hour)
        if (into === undefined) hours.set(hour, (into = emptyHour(ownerId, hour)))
        apply(into, linkHourOf(ownerId, r), 1)
      }
      const last = links.at(-1) as (typeof links)[number]
      after = { created_at: Number(last.created_at), id: last.id }
    }
    await db.deleteFrom('workspace_click_rollups').where('owner_id', '=', ownerId).execute()
    await db.deleteFrom('workspace_click_days').where('owner_id', '=', ownerId).execute()
    await writeHours(db, hours.values())
    // The days that link_click_facets has day rows of: the others are built by the next compaction.
    await compactWorkspaceDays(db, ownerId, 0, compactedBefore)
  }
}

/** What the roll-up added to each link's hours (after writeRollups), for their workspaces' rows. */
export function linkHoursAdded(links: Map<string, LinkTally>, owners: ReadonlyMap<string, string>): AddedHour[] {
  const added: AddedHour[] = []
  for (const [linkId, link] of links) {
    const ownerId = owners.get(linkId) as string
    for (const [hour, t] of link.hours) {
      if (t.total === 0) continue
      const { total, human, bot, qr, uniques, lastHuman, profiles, humanAfter } = t
      added.push({ ownerId, linkId, hour, total, human, bot, qr, uniques, lastHuman, profiles, humanAfter })
    }
  }
  return added
}
