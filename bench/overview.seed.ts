import { sql } from 'kysely'
import { newId } from '../src/shared/ids.js'
import { DAY_MS, HOUR_MS } from '../src/shared/time.js'
import { addFacets, type Facets, type ProfileInput } from '../src/stats/stats.dimensions.js'
import { encodeBlock } from '../src/stats/visit-columns.js'
import { TopLinks } from '../src/stats/top-links.js'
import type { Db } from '../src/storage/database.js'
import { repeatedStatement } from '../src/storage/repeated-statement.js'
import type { Database } from '../src/storage/schema.js'
import { inTransaction } from '../src/storage/transaction.js'
import { BENCH_DOMAIN, BIG_OWNER } from './seed.js'

/*
 * The overview bench's data, written straight as the tables the roll-up leaves (not through
 * redirects): `links` links of one workspace on four domains, half of them with a tag, and about
 * `clicks` visits over the last 90 days, link i drawing a share 1/(i+1) (Zipf: a few links take most
 * visits, most have one or none). Each link-hour is a rollup row with its breakdowns; each link-day
 * before today a day row of breakdowns (the compaction's, its watermark at today); each hour a
 * workspace row, and each day before today a workspace day row. The busiest link's visits are also in click blocks (one per 5 minutes), for the
 * per-link statistics in a zone whose midnights fall within hours.
 */

export const SPREAD_HOURS = 90 * 24
/** Each of TAGS tags is on 1 in 2·TAGS links: 500 links each over 1,000,000. */
export const TAGS = 1000
/** Domains by share of links (in fiftieths). */
export const DOMAINS = [
  { name: BENCH_DOMAIN, fiftieths: 35 },
  { name: 'go.bench', fiftieths: 10 },
  { name: 'promo.bench', fiftieths: 4 },
  { name: 'tiny.bench', fiftieths: 1 },
] as const
const REFERRERS = Array.from({ length: 40 }, (_, i) => `ref${i}.example`)
const BROWSERS = [
  ['Chrome', 'Windows', 'desktop'],
  ['Mobile Safari', 'iOS', 'mobile'],
  ['Chrome', 'Android', 'mobile'],
  ['Firefox', 'Linux', 'desktop'],
  ['Edge', 'Windows', 'desktop'],
] as const
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'JP', 'BR', 'IN', 'CA', 'NL', 'ES', 'IT', 'SE']
/** Links per round of generation and inserts. */
const LINKS_PER_ROUND = 20_000

export const domainOf = (i: number): string => {
  let left = i % 50
  for (const d of DOMAINS) {
    if (left < d.fiftieths) return d.name
    left -= d.fiftieths
  }
  return BENCH_DOMAIN
}
export const tagOf = (i: number): string | undefined => (i % 2 === 0 ? `tag-${i % (2 * TAGS)}` : undefined)

/** A seeded generator (mulberry32): the same data on every run and backend. */
export function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export interface OverviewData {
  ids: string[]
  /** Rows written, by table. */
  rows: Record<string, number>
  clicks: number
}

/** Multi-row inserts of precompiled statements, 1,000 rows each, 50 per transaction. */
function inserter<T extends keyof Database>(db: Db, table: T, columns: string[]) {
  const statement = repeatedStatement<Record<string, unknown>>(columns, 1000, (trx, rows) => trx.insertInto(table).values(rows as never))
  return async (rows: Record<string, unknown>[]) => {
    for (let start = 0; start < rows.length; start += 50_000) {
      await inTransaction(db, async (trx) => {
        for (let at = start; at < Math.min(rows.length, start + 50_000); at += 1000) await statement(trx, rows.slice(at, Math.min(rows.length, at + 1000)))
      })
    }
  }
}

export async function seedOverview(db: Db, settings: { links: number; clicks: number; backend: 'sqlite' | 'postgres' }, now: number): Promise<OverviewData> {
  const rng = random(42)
  const lastHour = Math.floor(now / HOUR_MS) * HOUR_MS
  const firstHour = lastHour - (SPREAD_HOURS - 1) * HOUR_MS
  const today = Math.floor(now / DAY_MS) * DAY_MS
  let harmonic = 0
  for (let r = 1; r <= settings.links; r++) harmonic += 1 / r
  const ids = Array.from({ length: settings.links }, () => newId('lnk'))
  const rows = { links: 0, link_tags: 0, link_click_rollups: 0, link_click_facets: 0, click_blocks: 0, workspace_click_rollups: 0, workspace_click_days: 0 }
  const insert = {
    links: inserter(db, 'links', ['id', 'owner_id', 'domain', 'path', 'destination', 'title', 'created_at', 'updated_at']),
    tags: inserter(db, 'link_tags', ['link_id', 'owner_id', 'tag']),
    rollups: inserter(db, 'link_click_rollups', [
      'link_id',
      'hour',
      'total_clicks',
      'human_clicks',
      'bot_clicks',
      'qr_scans',
      'unique_visitors',
      'last_human_click_at',
      'facets',
    ]),
    days: inserter(db, 'link_click_facets', ['link_id', 'granularity', 'period_start', 'counts']),
    blocks: inserter(db, 'click_blocks', ['link_id', 'start_at', 'end_at', 'clicks', 'data']),
    workspace: inserter(db, 'workspace_click_rollups', [
      'owner_id',
      'hour',
      'total_clicks',
      'human_clicks',
      'bot_clicks',
      'qr_scans',
      'unique_visitors',
      'last_human_click_at',
      'facets',
      'top_links',
      'top_bound',
    ]),
  }
  const workspace = Array.from({ length: SPREAD_HOURS }, () => ({ counts: [0, 0, 0, 0, 0], last: 0, facets: {} as Facets, top: new TopLinks() }))
  const workspaceDays = new Map<number, { facets: Facets; top: TopLinks }>()
  let clicks = 0
  const epoch = Date.UTC(2025, 0, 1)
  for (let round = 0; round < settings.links; round += LINKS_PER_ROUND) {
    const end = Math.min(settings.links, round + LINKS_PER_ROUND)
    const linkRows: Record<string, unknown>[] = []
    const tagRows: Record<string, unknown>[] = []
    const rollupRows: Record<string, unknown>[] = []
    const dayRows: Record<string, unknown>[] = []
    const blockRows: Record<string, unknown>[] = []
    for (let i = round; i < end; i++) {
      const id = ids[i] as string
      const at = epoch + i
      linkRows.push({
        id,
        owner_id: BIG_OWNER,
        domain: domainOf(i),
        path: `/o${i.toString(36)}`,
        destination: `https://shop.example/p/${i % 5000}`,
        title: `Link ${i}`,
        created_at: at,
        updated_at: at,
      })
      const tag = tagOf(i)
      if (tag !== undefined) tagRows.push({ link_id: id, owner_id: BIG_OWNER, tag })
      // Link i's visits: its share, rounded at random; spread evenly over the hours, the rest at random.
      const share = settings.clicks / harmonic / (i + 1)
      const count = Math.floor(share) + (rng() < share % 1 ? 1 : 0)
      if (count === 0) continue
      clicks += count
      const perHour = new Map<number, number>()
      const even = Math.floor(count / SPREAD_HOURS)
      if (even > 0) for (let h = 0; h < SPREAD_HOURS; h++) perHour.set(h, even)
      for (let n = 0; n < count - even * SPREAD_HOURS; n++) {
        const h = Math.floor(rng() * SPREAD_HOURS)
        perHour.set(h, (perHour.get(h) ?? 0) + 1)
      }
      let day = -1
      let dayFacets: Facets = {}
      let dayHuman = 0
      const flushDay = () => {
        if (day >= 0 && day < today && dayHuman > 0) {
          dayRows.push({ link_id: id, granularity: 'day', period_start: day, counts: JSON.stringify(dayFacets) })
          let w = workspaceDays.get(day)
          if (w === undefined) workspaceDays.set(day, (w = { facets: {}, top: new TopLinks() }))
          addFacets(w.facets, dayFacets)
          w.top.offer(id, dayHuman)
        }
        dayFacets = {}
        dayHuman = 0
      }
      for (const h of [...perHour.keys()].sort((a, b) => a - b)) {
        const hour = firstHour + h * HOUR_MS
        const visits = hourVisits(rng, perHour.get(h) as number, hour, i === 0)
        const [bot, human, qr] = [visits.bot, visits.human, visits.qr]
        const uniques = human - Math.floor(human / 10)
        const lastHuman = human > 0 ? hour + Math.floor(rng() * HOUR_MS) : null
        const hasFacets = Object.keys(visits.facets).length > 0
        rollupRows.push({
          link_id: id,
          hour,
          total_clicks: human + bot,
          human_clicks: human,
          bot_clicks: bot,
          qr_scans: qr,
          unique_visitors: uniques,
          last_human_click_at: lastHuman,
          facets: hasFacets ? JSON.stringify(visits.facets) : null,
        })
        if (Math.floor(hour / DAY_MS) * DAY_MS !== day) {
          flushDay()
          day = Math.floor(hour / DAY_MS) * DAY_MS
        }
        addFacets(dayFacets, visits.facets)
        dayHuman += human
        const w = workspace[h] as (typeof workspace)[number]
        ;[human + bot, human, bot, qr, uniques].forEach((n, k) => (w.counts[k] = (w.counts[k] as number) + n))
        if (lastHuman !== null) w.last = Math.max(w.last, lastHuman)
        addFacets(w.facets, visits.facets)
        if (human > 0) w.top.offer(id, human)
        if (visits.list !== undefined) blockRows.push(...blocksOf(id, visits.list))
      }
      flushDay()
    }
    await insert.links(linkRows)
    await insert.tags(tagRows)
    await insert.rollups(rollupRows)
    await insert.days(dayRows)
    await insert.blocks(blockRows)
    rows.links += linkRows.length
    rows.link_tags += tagRows.length
    rows.link_click_rollups += rollupRows.length
    rows.link_click_facets += dayRows.length
    rows.click_blocks += blockRows.length
  }
  const workspaceRows = workspace
    .map((w, h) => ({
      owner_id: BIG_OWNER,
      hour: firstHour + h * HOUR_MS,
      total_clicks: w.counts[0],
      human_clicks: w.counts[1],
      bot_clicks: w.counts[2],
      qr_scans: w.counts[3],
      unique_visitors: w.counts[4],
      last_human_click_at: w.last === 0 ? null : w.last,
      facets: Object.keys(w.facets).length === 0 ? null : JSON.stringify(w.facets),
      top_links: w.top.toJSON(),
      top_bound: w.top.bound,
    }))
    .filter((w) => (w.total_clicks as number) > 0)
  await insert.workspace(workspaceRows)
  rows.workspace_click_rollups = workspaceRows.length
  const dayRowsOfWorkspace = [...workspaceDays].map(([day, w]) => ({
    owner_id: BIG_OWNER,
    day,
    facets: JSON.stringify(w.facets),
    top_links: w.top.toJSON(),
    top_bound: w.top.bound,
  }))
  await inserter(db, 'workspace_click_days', ['owner_id', 'day', 'facets', 'top_links', 'top_bound'])(dayRowsOfWorkspace)
  rows.workspace_click_days = dayRowsOfWorkspace.length
  // Every day before today has its day rows, as after the day's compaction.
  await sql`update facets_compaction set days_before = ${today} where id = 1`.execute(db)
  // PostgreSQL's planner needs the statistics that autovacuum would gather in time; SQLite has none unless asked.
  if (settings.backend === 'postgres') await sql`analyze`.execute(db)
  return { ids, rows, clicks }
}

type Visit = { at: number; profile: ProfileInput }

/** An hour's visits of a link: 5 % bots, 10 % of people through QR codes, people's breakdowns; with `keep`, each visit for its click block. */
function hourVisits(rng: () => number, n: number, hour: number, keep: boolean) {
  let [bot, human, qr] = [0, 0, 0]
  const facets: Facets = {}
  const list: Visit[] | undefined = keep ? [] : undefined
  const count = (dimension: keyof Facets, value: string) => {
    const values = (facets[dimension] ??= {})
    values[value] = (values[value] ?? 0) + 1
  }
  for (let v = 0; v < n; v++) {
    const isBot = rng() < 0.05
    const isQr = !isBot && rng() < 0.1
    const referrer = rng() < 0.4 ? null : (REFERRERS[Math.floor(REFERRERS.length * rng() * rng())] as string)
    const [browser, os, device] = BROWSERS[Math.floor(BROWSERS.length * rng() * rng())] as (typeof BROWSERS)[number]
    const country = COUNTRIES[Math.floor(COUNTRIES.length * rng() * rng())] as string
    if (isBot) bot++
    else {
      human++
      if (isQr) qr++
      count('referrer', referrer ?? 'direct')
      count('browser', browser)
      count('os', os)
      count('device', device)
      count('country', country)
    }
    list?.push({ at: hour + Math.floor(rng() * HOUR_MS), profile: { bot: isBot, qr: isQr, referrer, browser, os, device, country } })
  }
  return { bot, human, qr, facets, list }
}

/** A link's visits of an hour as click blocks of 5 minutes each, as roll-ups write them. */
function blocksOf(linkId: string, visits: Visit[]): Record<string, unknown>[] {
  const byBlock = new Map<number, Visit[]>()
  for (const v of visits.sort((a, b) => a.at - b.at)) {
    const start = Math.floor(v.at / 300_000)
    byBlock.set(start, [...(byBlock.get(start) ?? []), v])
  }
  return [...byBlock.values()].map((list) => {
    const profiles = list.map((v) => v.profile)
    const pairs = list.flatMap((v, i) => [v.at, i])
    return {
      link_id: linkId,
      start_at: (list[0] as Visit).at,
      end_at: (list.at(-1) as Visit).at,
      clicks: list.length,
      data: JSON.stringify(encodeBlock(pairs, profiles)),
    }
  })
}
