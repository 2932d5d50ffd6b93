import { statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PostgresAdapter, sql } from 'kysely'
import { newId } from '../src/shared/ids.js'
import { quantile } from './load.js'
import {
  BENCH_DOMAIN,
  BENCH_TOKEN,
  benchPostgres,
  BIG_OWNER,
  destinationOf,
  insertInBatches,
  linklineEnv,
  prepareDatabase,
  SMALL_OWNER,
  titleOf,
} from './seed.js'
import type { TargetRow } from './report.js'
import { startServer, type ServerProcess } from './servers.js'

export interface LinkListSettings {
  /** Links of the big owner, the one the token belongs to (the small owner has 1,000 beside them). */
  links: number
  /** Requests per read, one at a time, after a few to warm up; reads that scan every link take a tenth. */
  requests: number
  /** Also on PostgreSQL, when TEST_DATABASE_URL and TEST_REDIS_URL name local services. */
  postgres: boolean
}

export interface LinkListRead {
  name: string
  /** Links of the owner that the read selects. */
  matches: number
  /** Whether the read is judged by the target: q of 3 characters or more. */
  search: boolean
  p50: number
  p95: number
}

export interface LinkListReport {
  settings: LinkListSettings
  backends: { name: string; seedSeconds: number; databaseBytes: number | undefined; reads: LinkListRead[] }[]
}

const SMALL_OWNER_LINKS = 1000
const AUTH = { authorization: `Bearer ${BENCH_TOKEN}` }

/** The seeded words: in every link (`shop` in the destination, `Campaign` in the title), in 1 of 200, in 1 of 50,000. */
const SPRING_EVERY = 200
const RARE_EVERY = 50_000
/** Tags: `newsletter` on 1 link of 10, `vip` on 1 of 10,000. */
const NEWSLETTER_EVERY = 10
const VIP_EVERY = 10_000

/** How many of 0…count-1 are `offset` modulo `every`. */
const countOf = (count: number, every: number, offset = 0) => (count > offset ? Math.floor((count - 1 - offset) / every) + 1 : 0)

/**
 * The link list over one workspace of `links` links (seeded straight into the tables, the search
 * index kept by the database as for any write), read through HTTP one request at a time: the default
 * page, the sorts, `q` for a word in every link, in 1 of 200 and in 1 of 50,000, two letters, and tags.
 */
export async function benchLinkList(settings: LinkListSettings, workDir: string, log: (line: string) => void): Promise<LinkListReport> {
  const report: LinkListReport = { settings, backends: [] }
  const file = join(workDir, 'link-list.db')
  report.backends.push(await onBackend('SQLite', file, settings, log, () => statSync(file).size + walSize(file)))
  if (settings.postgres) {
    const postgres = await benchPostgres()
    if (postgres === undefined) log('link list on PostgreSQL: skipped (set TEST_DATABASE_URL and TEST_REDIS_URL to local services)')
    else {
      try {
        report.backends.push(await onBackend('PostgreSQL', postgres, settings, log, () => undefined))
      } finally {
        await postgres.drop()
      }
    }
  }
  return report
}

const walSize = (file: string) => {
  try {
    return statSync(`${file}-wal`).size
  } catch {
    return 0
  }
}

async function onBackend(
  name: string,
  database: Parameters<typeof linklineEnv>[0],
  settings: LinkListSettings,
  log: (line: string) => void,
  size: () => number | undefined,
): Promise<LinkListReport['backends'][number]> {
  const started = Date.now()
  const epoch = Date.UTC(2025, 0, 1)
  const tags: { link_id: string; owner_id: string; tag: string }[] = []
  await prepareDatabase(database, async (db) => {
    await insertInBatches(db, 'links', settings.links, (i) => {
      const id = newId('lnk')
      if (i % NEWSLETTER_EVERY === 0) tags.push({ link_id: id, owner_id: BIG_OWNER, tag: 'newsletter' })
      if (i % VIP_EVERY === 0) tags.push({ link_id: id, owner_id: BIG_OWNER, tag: 'vip' })
      const words = `${i % SPRING_EVERY === 3 ? ' spring' : ''}${i % RARE_EVERY === 7 ? ' zephyr edition' : ''}`
      // Two links in three were clicked: counts and times spread over the range.
      const clicked = i % 3 !== 0
      return {
        id,
        owner_id: BIG_OWNER,
        domain: BENCH_DOMAIN,
        path: `/l${i}`,
        destination: destinationOf(i),
        title: `${titleOf(i)}${words}`,
        created_at: epoch + i,
        updated_at: epoch + i,
        clicks: clicked ? (i * 7919) % 10_000 : 0,
        last_clicked_at: clicked ? epoch + ((i * 104_729) % 1_000_000_000) : null,
      }
    })
    await insertInBatches(db, 'link_tags', tags.length, (i) => tags[i] as (typeof tags)[number])
    await insertInBatches(db, 'links', SMALL_OWNER_LINKS, (i) => ({
      id: newId('lnk'),
      owner_id: SMALL_OWNER,
      domain: BENCH_DOMAIN,
      path: `/s${i}`,
      destination: destinationOf(i),
      title: `${titleOf(i)} spring zephyr`,
      created_at: epoch + i,
      updated_at: epoch + i,
    }))
    // What autovacuum does after a bulk load, later: PostgreSQL plans the searches by the statistics, and
    // the GIN indexes' pending entries (read on every search until then) go into the indexes.
    if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`vacuum analyze`.execute(db)
  })
  const seedSeconds = (Date.now() - started) / 1000
  log(`link list (${name}): seeded ${settings.links.toLocaleString('en')} links in ${seedSeconds.toFixed(1)} s`)

  const n = settings.links
  const page = (matches: number) => Math.min(20, matches)
  const reads: { name: string; path: string; matches: number; search?: boolean; slow?: boolean }[] = [
    { name: 'default page (-createdAt)', path: '/v1/links', matches: n },
    { name: 'sort=-clicks', path: '/v1/links?sort=-clicks', matches: n },
    { name: 'sort=lastClickedAt (never clicked last)', path: '/v1/links?sort=lastClickedAt', matches: n },
    { name: 'q=shop (every link)', path: '/v1/links?q=shop', matches: n, search: true },
    { name: `q=spring (1 link in ${SPRING_EVERY})`, path: '/v1/links?q=spring', matches: countOf(n, SPRING_EVERY, 3), search: true },
    { name: `q=zephyr (1 link in ${RARE_EVERY.toLocaleString('en')})`, path: '/v1/links?q=zephyr', matches: countOf(n, RARE_EVERY, 7), search: true },
    { name: 'q=zephyr&sort=-clicks', path: '/v1/links?q=zephyr&sort=-clicks', matches: countOf(n, RARE_EVERY, 7), search: true },
    { name: 'q=ca (2 letters, every link)', path: '/v1/links?q=ca', matches: n },
    { name: 'q=zq (2 letters, no link: the whole scan)', path: '/v1/links?q=zq', matches: 0, slow: true },
    { name: `query[tag]=newsletter (1 link in ${NEWSLETTER_EVERY})`, path: '/v1/links?query[tag]=newsletter', matches: countOf(n, NEWSLETTER_EVERY) },
    { name: `query[tag]=vip (1 link in ${VIP_EVERY.toLocaleString('en')})`, path: '/v1/links?query[tag]=vip', matches: countOf(n, VIP_EVERY) },
    { name: 'query[tag]=newsletter&query[tag]=vip', path: '/v1/links?query[tag]=newsletter&query[tag]=vip', matches: countOf(n, VIP_EVERY) },
  ]
  const server = await startServer({ name: 'Linkline', script: fileURLToPath(new URL('../src/main.js', import.meta.url)), env: linklineEnv(database) })
  try {
    const measured: LinkListRead[] = []
    for (const read of reads) {
      await verify(server, read.path, page(read.matches))
      const count = read.slow ? Math.max(3, Math.round(settings.requests / 10)) : settings.requests
      for (let i = 0; i < Math.min(5, count); i++) await timed(server, read.path)
      const times: number[] = []
      for (let i = 0; i < count; i++) times.push(await timed(server, read.path))
      times.sort((a, b) => a - b)
      const result = { name: read.name, matches: read.matches, search: read.search === true, p50: quantile(times, 0.5), p95: quantile(times, 0.95) }
      log(`link list (${name}): ${read.name}: p50 ${result.p50.toFixed(2)} ms, p95 ${result.p95.toFixed(2)} ms`)
      measured.push(result)
    }
    return { name, seedSeconds, databaseBytes: size(), reads: measured }
  } finally {
    await server.stop()
  }
}

/** Milliseconds from sending the request to the end of the answer's body. */
async function timed(server: ServerProcess, path: string): Promise<number> {
  const start = performance.now()
  const response = await fetch(server.url + path, { headers: AUTH })
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`)
  return performance.now() - start
}

/** A bench of errors or of wrong pages would be worthless: check the answer first. */
async function verify(server: ServerProcess, path: string, rows: number): Promise<void> {
  const response = await fetch(server.url + path, { headers: AUTH })
  const text = await response.text()
  const body = JSON.parse(text) as { data?: { ownerId: string }[] }
  if (response.status !== 200 || body.data?.length !== rows || body.data.some((l) => l.ownerId !== BIG_OWNER)) {
    throw new Error(`GET ${path} answered ${response.status}, expected ${rows} links of ${BIG_OWNER}: ${text.slice(0, 300)}`)
  }
}

export function renderLinkList(report: LinkListReport): string {
  const { links, requests } = report.settings
  const lines = [
    `### The link list over ${links.toLocaleString('en')} links of one workspace`,
    '',
    `Seeded straight into the tables (the search index kept by the database, as for any write), beside ${SMALL_OWNER_LINKS.toLocaleString('en')} links of another workspace; ` +
      `read through HTTP one request at a time, ${requests} requests per read after 5 to warm up (a tenth for the whole scan); a page is 20 links.`,
    '',
  ]
  for (const b of report.backends) {
    lines.push(
      `**${b.name}** (seeded in ${b.seedSeconds.toFixed(0)} s${b.databaseBytes === undefined ? '' : `, database file ${(b.databaseBytes / 1024 ** 2).toFixed(0)} MiB`}):`,
      '',
      '| read | links selected | p50 ms | p95 ms |',
      '|---|---|---|---|',
      ...b.reads.map((r) => `| \`${r.name}\` | ${r.matches.toLocaleString('en')} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} |`),
      '',
    )
  }
  return lines.join('\n')
}

/** The search target per backend, judged over 1,000,000 links in a full run only. */
export function linkListTargets(report: LinkListReport, full: boolean): TargetRow[] {
  const { links } = report.settings
  return report.backends.map((b) => {
    const worst = Math.max(...b.reads.filter((r) => r.search).map((r) => r.p50))
    return {
      target: `link list \`q=\` (3 characters or more) p50 < 20 ms over 1,000,000 links, ${b.name}`,
      measured: `slowest p50 ${worst.toFixed(2)} ms (${links.toLocaleString('en')} links)`,
      met: !full || links < 1_000_000 ? 'not judged (fewer than 1,000,000 links)' : worst < 20,
    }
  })
}
