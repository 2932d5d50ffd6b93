import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { createRollup } from '../src/stats/click-rollup.js'
import { createStatsRepository, type StatsRepository } from '../src/stats/stats.repository.js'
import { encodeVisits, newBatchSlot, type Visit } from '../src/stats/visit-batch.js'
import { createVisitWriter } from '../src/stats/visit-writer.js'
import { openStorage, type Storage } from '../src/storage/database.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { random } from './overview.seed.js'
import { browserUa } from './redirect.bench.js'
import type { TargetRow } from './report.js'
import { benchPostgres, insertLinks, linkRow, redirectLinks, SMALL_OWNER } from './seed.js'

export interface StorageSettings {
  links: number
  /** Visits per second, over all links. */
  perSecond: number
  /** Hours of visits at steady load, compacted as they close. */
  hours: number
  backend: 'sqlite' | 'postgres'
}

/**
 * The part's settings: 2,000 links at 100 visits/s, for 6 h alone (`--only storage`) and 2 h with
 * --quick or in the full run, where hour rows per visit (the target) read the same as after 6 h.
 * PostgreSQL's round trips make an hour of load take several times SQLite's: 2 hours there.
 */
export const storageSettings = (backend: StorageSettings['backend'], long: boolean): StorageSettings => ({
  links: 2000,
  perSecond: 100,
  hours: long && backend === 'sqlite' ? 6 : 2,
  backend,
})

/** The click blocks at one point: rows, visits, and what they take on disk. */
export interface StorageMeasure {
  stage: string
  visits: number
  rows: number
  /** The click_blocks table and its indexes, in the database's pages. */
  bytes: number
}

export interface StorageReport {
  settings: StorageSettings
  measures: StorageMeasure[]
  /** CPU µs per visit: the writer's appends and roll-ups; the compaction as it goes; the last hour's and the days' compaction at the end. */
  writerMicros: number
  compactMicros: number
  finalMicros: number
}

const HOUR = 3_600_000
const DAY = 24 * HOUR
const WINDOW = 10_000

/** Index k of n with probability ∝ 1/(k+1): a few values common, a long tail. */
function zipf(n: number, next: () => number): () => number {
  const cumulative: number[] = []
  let sum = 0
  for (let k = 0; k < n; k++) cumulative.push((sum += 1 / (k + 1)))
  return () => {
    const x = next() * sum
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((cumulative[mid] as number) < x) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

const COUNTRIES = 'US DE FR GB IN BR JP CA ES IT NL PL SE MX AU KR TR ID CH BE AT AR ZA NG EG PH VN UA PT IE'.split(' ')
const LANGUAGES = [
  'en-US,en;q=0.9',
  'de-DE,de;q=0.9',
  'fr-FR,fr;q=0.9',
  'en-GB,en;q=0.9',
  'es-ES,es;q=0.9',
  'pt-BR,pt;q=0.9',
  'ja-JP',
  'it-IT,it',
  'nl-NL',
  'pl-PL',
]
const BOTS = ['Googlebot/2.1 (+http://www.google.com/bot.html)', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'curl/8.5.0']

/**
 * Visits as a steady load makes them: each link equally likely, arrivals at random within each 10 s
 * window; browsers, referrers, countries and languages each common-to-rare; 3 % bots; a tenth of the
 * links printed as QR codes (half their visits scanned), three in ten with UTM parameters.
 */
function visitSource(linkIds: readonly string[], seed: number) {
  const next = random(seed)
  const ua = zipf(6, next)
  const referrer = zipf(60, next)
  const country = zipf(COUNTRIES.length, next)
  const language = zipf(LANGUAGES.length, next)
  const slots = linkIds.map(() => newBatchSlot())
  return (from: number, count: number): Visit[] => {
    const times = Array.from({ length: count }, () => from + Math.floor(next() * WINDOW)).sort((a, b) => a - b)
    return times.map((at) => {
      const link = Math.floor(next() * linkIds.length)
      const bot = next() < 0.03
      return {
        linkId: linkIds[link] as string,
        at,
        qr: link % 10 === 0 && next() < 0.5,
        head: false,
        ip: `198.51.${Math.floor(next() * 256)}.${Math.floor(next() * 256)}`,
        userAgent: bot ? BOTS[Math.floor(next() * BOTS.length)] : browserUa(ua()),
        referer: next() < 0.4 ? undefined : `https://site${referrer()}.example/article/${Math.floor(next() * 1000)}`,
        country: COUNTRIES[country()],
        acceptLanguage: LANGUAGES[language()],
        utmLocation: link % 10 < 3 ? `https://shop.example/p/${link}?utm_source=newsletter&utm_medium=email&utm_campaign=c${link % 50}` : undefined,
        slot: slots[link],
      }
    })
  }
}

async function blockBytes(storage: Storage, backend: StorageSettings['backend']): Promise<number> {
  if (backend === 'sqlite') {
    const { rows } = await sql<{ bytes: number }>`select sum(pgsize) as bytes from dbstat
      where name in ('click_blocks', 'click_blocks_link_start', 'click_blocks_to_compact')`.execute(storage.db)
    return Number(rows[0]?.bytes ?? 0)
  }
  const { rows } = await sql<{ bytes: string }>`select pg_total_relation_size('click_blocks') as bytes`.execute(storage.db)
  return Number(rows[0]?.bytes ?? 0)
}

async function measure(storage: Storage, backend: StorageSettings['backend'], stage: string, vacuum: boolean): Promise<StorageMeasure> {
  if (vacuum) await sql`${sql.raw(backend === 'sqlite' ? 'vacuum' : 'vacuum full click_blocks')}`.execute(storage.db)
  else if (backend === 'postgres') await sql`vacuum click_blocks`.execute(storage.db)
  const row = await storage.db
    .selectFrom('click_blocks')
    .select((eb) => [eb.fn.countAll<number | string>().as('rows'), eb.fn.coalesce(eb.fn.sum<number | string>('clicks'), eb.lit(0)).as('visits')])
    .executeTakeFirstOrThrow()
  return { stage, visits: Number(row.visits), rows: Number(row.rows), bytes: await blockBytes(storage, backend) }
}

/**
 * Click blocks at rest: `links` links visited `perSecond` times a second for `hours` hours, in process
 * through the click writer (a write every 10 s, a roll-up every 10 s, blocks every 30 s, as the
 * defaults), compacting closed hours as it goes; then the last hour compacted, then the day rows a week
 * later. Beside it, one hour written without compaction: the blocks as the roll-up writes them.
 */
const HOUR_ROWS = 'every hour compacted (level 1), vacuumed'
const DAY_ROWS = 'a week later: one row per link and day (level 2), vacuumed'

export async function benchStorage(settings: StorageSettings, log: (line: string) => void): Promise<StorageReport> {
  const measures: StorageMeasure[] = []
  let finalMicros = 0
  await simulate(settings, Math.min(settings.hours, 1), false, log, async (storage, backend) => {
    measures.push(await measure(storage, backend, 'as the roll-up writes them (no compaction), 1 hour', false))
  })
  const steady = await simulate(settings, settings.hours, true, log, async (storage, backend, repo, end) => {
    const written = await measure(storage, backend, `steady: ${settings.hours} h written, closed hours compacted as they close`, false)
    measures.push(written)
    const cpu = process.cpuUsage()
    for (let now = end + 6 * 60_000; !(await repo.compactBlocks(now, 10_000)););
    measures.push(await measure(storage, backend, HOUR_ROWS, true))
    for (let now = end + 8 * DAY; !(await repo.compactBlocks(now, 10_000)););
    const used = process.cpuUsage(cpu)
    measures.push(await measure(storage, backend, DAY_ROWS, true))
    // Vacuums included: an upper bound.
    finalMicros = (used.user + used.system) / written.visits
  })
  return { settings, measures, writerMicros: steady.writerMicros, compactMicros: steady.compactMicros, finalMicros }
}

async function simulate(
  settings: StorageSettings,
  hours: number,
  compact: boolean,
  log: (line: string) => void,
  after: (storage: Storage, backend: StorageSettings['backend'], repo: StatsRepository, end: number) => Promise<void>,
): Promise<{ writerMicros: number; compactMicros: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-storage-'))
  const pg = settings.backend === 'postgres' ? await benchPostgres() : undefined
  if (settings.backend === 'postgres' && pg === undefined) throw new Error('storage on PostgreSQL needs TEST_DATABASE_URL and TEST_REDIS_URL')
  const storage = openStorage({
    databaseUrl: pg?.url ?? `sqlite:${join(dir, 'storage.db')}`,
    databasePoolSize: 1,
    databaseStatementTimeoutMs: 600_000,
  })
  try {
    await migrateToLatest(storage)
    const seeded = redirectLinks(settings.links)
    await insertLinks(storage.db, settings.links, (i) => linkRow(SMALL_OWNER, (seeded[i] as (typeof seeded)[number]).path, 'https://dest.example/', null, i))
    const ids = (await storage.db.selectFrom('links').select('id').execute()).map((r) => r.id)
    const repo = createStatsRepository(storage.db, storage.adapter)
    let compactMicros = 0
    const timed: StatsRepository = {
      ...repo,
      async compactBlocks(now, budget) {
        const cpu = process.cpuUsage()
        try {
          return await repo.compactBlocks(now, budget)
        } finally {
          const used = process.cpuUsage(cpu)
          compactMicros += used.user + used.system
        }
      },
    }
    const start = Date.UTC(2026, 10, 2)
    let now = start
    const writer = createVisitWriter(timed, createRollup(storage.db, storage.adapter), {
      shared: storage.adapter.sharedAcrossInstances,
      blockIntervalMs: 30_000,
      now: () => now,
      compact,
    })
    const source = visitSource(ids, 7)
    const windows = (hours * HOUR) / WINDOW
    const cpu = process.cpuUsage()
    for (let w = 0; w < windows; w++) {
      const from = start + w * WINDOW
      await writer.write(encodeVisits(source(from, (settings.perSecond * WINDOW) / 1000)))
      now = from + WINDOW
      await writer.rollUp(w % 3 === 2 || w === windows - 1)
      if ((w + 1) % 360 === 0) log(`storage (${settings.backend}${compact ? '' : ', no compaction'}): ${(w + 1) / 360} h of ${hours} written`)
    }
    const used = process.cpuUsage(cpu)
    const visits = (windows * settings.perSecond * WINDOW) / 1000
    const result = { writerMicros: (used.user + used.system - compactMicros) / visits, compactMicros: compactMicros / visits }
    await after(storage, settings.backend, repo, now)
    return result
  } finally {
    await storage.close()
    await pg?.drop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Bytes per visit at rest: judged on the hour rows, the larger; the day rows and rows per day beside them. */
export function storageTargets(reports: readonly StorageReport[]): TargetRow[] {
  return reports.map(({ settings, measures }) => {
    const hour = measures.find((m) => m.stage === HOUR_ROWS)
    const day = measures.find((m) => m.stage === DAY_ROWS)
    const perVisit = (m: StorageMeasure | undefined) => (m === undefined ? NaN : m.bytes / Math.max(m.visits, 1))
    const hourly = hour === undefined ? NaN : Math.round(hour.rows * (24 / settings.hours)).toLocaleString('en')
    return {
      target: `click blocks ≤ 20 bytes per recorded visit at rest, ${settings.links.toLocaleString('en')} steady links (${settings.backend}, ${settings.hours} h)`,
      measured:
        `${perVisit(hour).toFixed(1)} in hour rows (${hourly} rows a day at ${settings.perSecond} visits/s), ` +
        `${perVisit(day).toFixed(1)} in day rows (${day?.rows.toLocaleString('en') ?? '–'} rows a day)`,
      met: perVisit(hour) <= 20,
    }
  })
}

export function renderStorage(reports: readonly StorageReport[]): string {
  const out: string[] = []
  for (const r of reports) {
    const { links, perSecond, hours, backend } = r.settings
    out.push(
      `### Click blocks at rest (${backend}): ${links.toLocaleString('en')} links, ${perSecond} visits/s, ${hours} h`,
      '',
      `CPU per visit: the writer (appends, roll-ups, blocks) ${r.writerMicros.toFixed(2)} µs; the compaction as it goes ${r.compactMicros.toFixed(2)} µs; ` +
        `the last hour's and the day rows' at the end ${r.finalMicros.toFixed(2)} µs (vacuums included).`,
      '',
      '| stage | visits | rows | rows per day at this load | bytes (table + indexes) | bytes per visit |',
      '|---|---|---|---|---|---|',
      ...r.measures.map((m) => {
        const perDay = m.stage.startsWith('as the roll-up')
          ? m.rows * 24
          : m.stage.startsWith('a week later')
            ? m.rows / Math.ceil(hours / 24)
            : m.rows * (24 / hours)
        const day = m.stage.startsWith('steady') ? '—' : Math.round(perDay).toLocaleString('en')
        return `| ${m.stage} | ${m.visits.toLocaleString('en')} | ${m.rows.toLocaleString('en')} | ${day} | ${m.bytes.toLocaleString('en')} | ${(m.bytes / Math.max(m.visits, 1)).toFixed(1)} |`
      }),
      '',
    )
  }
  return out.join('\n')
}
