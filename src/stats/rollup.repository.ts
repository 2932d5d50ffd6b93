import { type Insertable, type SelectQueryBuilder } from 'kysely'
import { chunks } from '../shared/chunks.js'
import type { Db } from '../storage/database.js'
import type { Database } from '../storage/schema.js'
import { repeatedStatement } from '../storage/repeated-statement.js'
import type { Transaction } from '../storage/transaction.js'
import { dayOf, hourOf } from './classify.js'
import type { DailyVisitor, KnownVisitors, WrittenFacets, WrittenHourFacets } from './rollup.caches.js'
import { linkClicksStatement } from './link-clicks.js'
import { addProfiles, blockOf, facetsOf, type HourTally, type LinkTally, type VisitList } from './rollup.tally.js'
import { addFacets, readFacets, type Facets, type Profile } from './stats.dimensions.js'
import type { ClickBlocksTable, LinkClickFacetsTable, LinkClickRollupsTable, LinkDailyVisitorsTable } from './stats.table.js'

/** The roll-up's SQL (click-rollup.ts runs it in order, in one transaction, under the roll-up lock). */

/** The advisory lock key that serialises roll-ups across instances (PostgreSQL), and whatever else read-modify-writes their rows. */
export const ROLLUP_LOCK = 0x6c6e6b636c6b /* "lnkclk" */

/** Rows per INSERT statement (at most 9 values each): far below both databases' bound-parameter limits. */
export const CHUNK = 1000
/** Click blocks per INSERT: their data is the visits, a few hundred of them each. */
const BLOCK_CHUNK = 200

/** One page of link ids after `after`, in order: compactDays walks every link. */
export async function linkIdsAfter(db: Db, after: string): Promise<string[]> {
  return (await db.selectFrom('links').select('id').where('id', '>', after).orderBy('id').limit(CHUNK).execute()).map((r) => r.id)
}

/** Moves the compaction's watermark forward to `day`. */
export async function compactedThrough(db: Db, day: number): Promise<void> {
  await db.updateTable('facets_compaction').set({ days_before: day }).where('id', '=', 1).where('days_before', '<', day).execute()
}

/** The compaction's watermark: every UTC day before it has its day rows; later days are read from hour rows. */
export async function facetsCompactedBefore(db: Db): Promise<number> {
  const row = await db.selectFrom('facets_compaction').select('days_before').where('id', '=', 1).executeTakeFirst()
  return Number(row?.days_before ?? 0)
}

/** The roll-up's multi-row writes, each compiled once for full chunks (one set per writer: the SQL is its database's). */
export function rollupStatements() {
  return {
    visitors: repeatedStatement<LinkDailyVisitorsTable, LinkDailyVisitorsTable>(['link_id', 'day', 'visitor_key'], CHUNK, (trx, rows) =>
      trx
        .insertInto('link_daily_visitors')
        .values(rows)
        .onConflict((oc) => oc.columns(['link_id', 'day', 'visitor_key']).doNothing())
        .returning(['link_id', 'day', 'visitor_key']),
    ),
    rollups: repeatedStatement<LinkClickRollupsTable, Pick<LinkClickRollupsTable, 'link_id' | 'hour' | 'human_clicks'>>(
      ['link_id', 'hour', 'total_clicks', 'human_clicks', 'bot_clicks', 'qr_scans', 'unique_visitors', 'last_human_click_at', 'facets'],
      CHUNK,
      (trx, rows) =>
        trx
          .insertInto('link_click_rollups')
          .values(rows)
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
              // The whole hour's breakdowns (hourFacets), or none when the roll-up brought no human visit.
              facets: eb.fn.coalesce('excluded.facets', 'link_click_rollups.facets'),
            })),
          )
          // The hour's human clicks after the increment: its workspace's busiest links (workspace-rollup.ts).
          .returning(['link_id', 'hour', 'human_clicks']),
    ),
    facets: repeatedStatement<LinkClickFacetsTable>(['link_id', 'granularity', 'period_start', 'counts'], CHUNK, (trx, rows) =>
      trx
        .insertInto('link_click_facets')
        .values(rows)
        .onConflict((oc) => oc.columns(['link_id', 'granularity', 'period_start']).doUpdateSet((eb) => ({ counts: eb.ref('excluded.counts') }))),
    ),
    blocks: repeatedStatement<Insertable<ClickBlocksTable>>(['link_id', 'start_at', 'end_at', 'clicks', 'data'], BLOCK_CHUNK, (trx, rows) =>
      trx.insertInto('click_blocks').values(rows),
    ),
    linkClicks: linkClicksStatement(),
  }
}

export type Statements = ReturnType<typeof rollupStatements>

/**
 * Unique visitors: a human visitor counts once per link and UTC day, in the hour of their first visit.
 * Keys this writer already saw committed cost nothing; the others are inserted, and those the
 * database did not have yet (RETURNING lists only the inserted rows) are the new uniques.
 */
export async function writeVisitors(
  trx: Transaction,
  statements: Statements,
  links: Map<string, LinkTally>,
  known: KnownVisitors,
  remembered: DailyVisitor[],
): Promise<void> {
  const candidates: DailyVisitor[] = []
  for (const [linkId, link] of links) {
    for (const [day, seen] of link.visitors) {
      const already = known.of(day, linkId)
      for (const visitor of seen.keys()) if (!already?.has(visitor)) candidates.push({ link_id: linkId, day, visitor_key: visitor })
    }
  }
  for (const rows of chunks(candidates, CHUNK)) {
    for (const r of await statements.visitors(trx, rows)) {
      // The tally holds the time of the visitor's first visit that day: their hour counts them.
      const link = links.get(r.link_id) as LinkTally
      const at = (link.visitors.get(Number(r.day)) as Map<string, number>).get(r.visitor_key) as number
      const hour = link.hours.get(hourOf(at)) as HourTally
      hour.uniques++
    }
  }
  for (const c of candidates) remembered.push(c)
}

/**
 * Each hour's breakdowns as they will be written (`facets` of its tally): the counts its rollup row
 * holds, remembered (`written`) or read back, plus the roll-up's human visits. Under the roll-up lock,
 * so no other writer changes a row meanwhile.
 */
export async function hourFacets(trx: Transaction, links: Map<string, LinkTally>, profiles: readonly Profile[], written: WrittenFacets): Promise<void> {
  /** Hours whose counts are not remembered: read back first. */
  const unknown = new Set<HourTally>()
  const ids = new Set<string>()
  const hours = new Set<number>()
  for (const [linkId, link] of links) {
    for (const [hour, t] of link.hours) {
      if (t.profiles.size === 0) continue
      t.facets = written.get(linkId, hour)
      if (t.facets !== undefined) continue
      t.facets = {}
      unknown.add(t)
      ids.add(linkId)
      hours.add(hour)
    }
  }
  const hourList = [...hours]
  for (const chunk of chunks([...ids], CHUNK)) {
    const rows = await trx
      .selectFrom('link_click_rollups')
      .select(['link_id', 'hour', 'facets'])
      .where('link_id', 'in', chunk)
      .where('hour', 'in', hourList)
      .where('facets', 'is not', null)
      .execute()
    for (const r of rows) {
      const t = links.get(r.link_id)?.hours.get(Number(r.hour))
      // Only hours asked for: the query's lists also match remembered hours of the same links.
      if (t !== undefined && unknown.has(t)) t.facets = readFacets(r.facets as string)
    }
  }
  for (const link of links.values()) for (const t of link.hours.values()) if (t.facets !== undefined) addProfiles(t.facets, t.profiles, profiles)
}

/**
 * Adds the counters and the breakdowns (hourFacets) to the hourly rollups, creating the rows that are
 * missing, and sets each hour's human clicks after the roll-up (`humanAfter`). Returns the breakdowns written.
 */
export async function writeRollups(trx: Transaction, statements: Statements, links: Map<string, LinkTally>): Promise<WrittenHourFacets> {
  const written: WrittenHourFacets = []
  const rows: LinkClickRollupsTable[] = []
  for (const [linkId, link] of links) {
    for (const [hour, t] of link.hours) {
      // An hour of visits counted before, only put in blocks by this roll-up.
      if (t.total === 0) continue
      const facets = t.facets === undefined ? null : JSON.stringify(t.facets)
      if (facets !== null) written.push({ link_id: linkId, period_start: hour, json: facets })
      rows.push({
        link_id: linkId,
        hour,
        total_clicks: t.total,
        human_clicks: t.human,
        bot_clicks: t.bot,
        qr_scans: t.qr,
        unique_visitors: t.uniques,
        last_human_click_at: t.lastHuman,
        facets,
      })
    }
  }
  for (const chunk of chunks(rows, CHUNK)) {
    for (const r of await statements.rollups(trx, chunk)) {
      const t = links.get(r.link_id)?.hours.get(Number(r.hour))
      if (t !== undefined) t.humanAfter = Number(r.human_clicks)
    }
  }
  return written
}

/**
 * Day breakdowns of days before `today` (today's are built once it is over: compactDays), for late
 * visits: each day row is read, the roll-up's counts added in memory and the row written back (under
 * the roll-up lock, so no other writer changes it meanwhile).
 */
export async function writeDayFacets(
  trx: Transaction,
  statements: Statements,
  links: Map<string, LinkTally>,
  profiles: readonly Profile[],
  today: number,
): Promise<void> {
  const adds: PeriodSums = new Map()
  for (const [linkId, link] of links) {
    for (const [hour, t] of link.hours) if (t.profiles.size > 0 && hour < today) addToPeriod(adds, linkId, dayOf(hour), facetsOf(t, profiles))
  }
  const periods = [...new Set([...adds.values()].map((a) => a.period_start))]
  for (const ids of chunks([...new Set([...adds.values()].map((a) => a.link_id))], CHUNK)) {
    const existing = await trx
      .selectFrom('link_click_facets')
      .select(['link_id', 'period_start', 'counts'])
      .where('link_id', 'in', ids)
      .where('granularity', '=', 'day')
      .where('period_start', 'in', periods)
      .execute()
    for (const r of existing) {
      const add = adds.get(`${r.link_id} ${Number(r.period_start)}`)
      if (add !== undefined) add.facets = addFacets(readFacets(r.counts), add.facets)
    }
  }
  await putDayFacets(trx, statements, [...adds.values()])
}

/** Facets summed per link and period (hour or day), keyed `${link_id} ${period_start}`. */
type PeriodSums = Map<string, { link_id: string; period_start: number; facets: Facets }>

function addToPeriod(sums: PeriodSums, linkId: string, period: number, facets: Facets): void {
  const key = `${linkId} ${period}`
  const sum = sums.get(key)
  if (sum === undefined) sums.set(key, { link_id: linkId, period_start: period, facets })
  else addFacets(sum.facets, facets)
}

/** Writes day rows as they are given (a row already there is replaced). */
async function putDayFacets(
  trx: Transaction,
  statements: Statements,
  rows: readonly { link_id: string; period_start: number; facets: Facets }[],
): Promise<void> {
  for (const chunk of chunks(rows, CHUNK)) {
    await statements.facets(
      trx,
      chunk.map((a) => ({ link_id: a.link_id, granularity: 'day' as const, period_start: a.period_start, counts: JSON.stringify(a.facets) })),
    )
  }
}

/**
 * The hour breakdowns of `linkIds`, hours in [from, to): the rollup rows' and the hour rows that an
 * instance of a release before migration 0015 writes to link_click_facets during a rolling upgrade
 * (LinkClickFacetsTable), which add to them.
 */
export async function hourBreakdowns(
  db: Db,
  linkIds: readonly string[] | SelectQueryBuilder<Database, 'links', { id: string }>,
  from: number,
  to: number,
): Promise<{ link_id: string; period_start: number; counts: string }[]> {
  const hours = await db
    .selectFrom('link_click_rollups')
    .select(['link_id', 'hour as period_start', 'facets as counts'])
    .where('link_id', 'in', linkIds)
    .where('hour', '>=', from)
    .where('hour', '<', to)
    .where('facets', 'is not', null)
    .execute()
  const older = await db
    .selectFrom('link_click_facets')
    .select(['link_id', 'period_start', 'counts'])
    .where('link_id', 'in', linkIds)
    .where('granularity', '=', 'hour')
    .where('period_start', '>=', from)
    .where('period_start', '<', to)
    .execute()
  return [...hours, ...older].map((r) => ({ link_id: r.link_id, period_start: Number(r.period_start), counts: r.counts as string }))
}

/** Builds again the day rows of `linkIds` for the days in [from, to): each the sum of its hours' breakdowns. */
export async function compactLinks(trx: Transaction, statements: Statements, linkIds: readonly string[], from: number, to: number): Promise<void> {
  const days: PeriodSums = new Map()
  for (const r of await hourBreakdowns(trx, linkIds, from, to)) addToPeriod(days, r.link_id, dayOf(r.period_start), readFacets(r.counts))
  await putDayFacets(trx, statements, [...days.values()])
}

/** Each link's visits of the roll-up as one click block per hour. */
export async function writeBlocks(
  trx: Transaction,
  statements: Statements,
  links: Map<string, LinkTally>,
  visits: VisitList,
  profiles: readonly Profile[],
): Promise<void> {
  const rows = [...links].flatMap(([linkId, link]) =>
    [...link.hours.values()]
      .filter((hour) => hour.listed > 0)
      .map((hour) => ({
        link_id: linkId,
        start_at: hour.start,
        end_at: hour.end,
        clicks: hour.listed,
        data: blockOf(hour, visits, profiles),
      })),
  )
  for (const chunk of chunks(rows, BLOCK_CHUNK)) await statements.blocks(trx, chunk)
}
