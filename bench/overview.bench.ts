import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { quantile } from './load.js'
import { DOMAINS, domainOf, seedOverview, SPREAD_HOURS, tagOf, TAGS } from './overview.seed.js'
import { BENCH_TOKEN, benchPostgres, linklineEnv, prepareDatabase } from './seed.js'
import { startServer } from './servers.js'

export interface OverviewSettings {
  links: number
  clicks: number
  /** Timed requests per read, after 3 untimed ones. */
  requests: number
  backend: 'sqlite' | 'postgres'
}

export interface OverviewReport {
  settings: OverviewSettings
  seedSeconds: number
  clicks: number
  rows: Record<string, number>
  reads: { name: string; p50: number; p95: number; max: number }[]
}

const AUTH = { authorization: `Bearer ${BENCH_TOKEN}` }
const DAY_MS = 86_400_000

/**
 * GET /v1/stats over a large workspace (overview.seed.ts), and one link's statistics in a zone whose
 * midnights fall within hours: each read sent one at a time to the real server (a child process over a
 * SQLite file, or PostgreSQL when TEST_DATABASE_URL and TEST_REDIS_URL name local services), so that the
 * latencies are the server's. Each read's answer is checked before it is timed.
 */
export async function benchOverview(settings: OverviewSettings, workDir: string, log: (line: string) => void): Promise<OverviewReport> {
  const postgres = settings.backend === 'postgres' ? await benchPostgres() : undefined
  if (settings.backend === 'postgres' && postgres === undefined) throw new Error('the PostgreSQL overview bench needs TEST_DATABASE_URL and TEST_REDIS_URL')
  const database = postgres ?? join(workDir, 'overview.db')
  try {
    const now = Date.now()
    const started = Date.now()
    let seeded: Awaited<ReturnType<typeof seedOverview>> | undefined
    await prepareDatabase(database, async (db) => {
      seeded = await seedOverview(db, settings, now)
    })
    const { ids, rows, clicks } = seeded as NonNullable<typeof seeded>
    const seedSeconds = (Date.now() - started) / 1000
    log(`overview (${settings.backend}): seeded ${clicks.toLocaleString('en-US')} clicks, ${JSON.stringify(rows)} in ${seedSeconds.toFixed(0)} s`)

    const count = (pick: (i: number) => boolean) => Array.from({ length: settings.links }, (_, i) => i).filter(pick).length
    const tag = tagOf(42) as string
    const [mid, big] = [DOMAINS[2].name, DOMAINS[1].name]
    const top = ids[0] as string
    const ninetyDays = new Date(now - (SPREAD_HOURS / 24 - 1) * DAY_MS).toISOString().slice(0, 10)
    const reads: { name: string; path: string; check: (data: Record<string, unknown>) => boolean }[] = [
      { name: 'every link, last 30 days by day', path: '/v1/stats', check: (d) => firstTop(d) === top },
      { name: 'every link, last 90 days by day', path: `/v1/stats?from=${ninetyDays}`, check: (d) => firstTop(d) === top },
      { name: 'every link, last 30 days by day, tz=Asia/Kolkata', path: '/v1/stats?tz=Asia/Kolkata', check: (d) => firstTop(d) === top },
      { name: `one tag (${count((i) => tagOf(i) === tag).toLocaleString('en-US')} links)`, path: `/v1/stats?tag=${tag}`, check: clicked },
      { name: `one domain (${count((i) => domainOf(i) === mid).toLocaleString('en-US')} links)`, path: `/v1/stats?domain=${mid}`, check: clicked },
      { name: `one domain (${count((i) => domainOf(i) === big).toLocaleString('en-US')} links)`, path: `/v1/stats?domain=${big}`, check: clicked },
      {
        name: '10 links by linkId',
        path: `/v1/stats?${ids
          .slice(0, 10)
          .map((id) => `linkId=${id}`)
          .join('&')}`,
        check: (d) => firstTop(d) === top,
      },
      { name: 'the busiest link, tz=Asia/Kolkata (30 hours split by its raw visits)', path: `/v1/links/${top}/stats?tz=Asia/Kolkata`, check: clicked },
      { name: 'the busiest link, UTC', path: `/v1/links/${top}/stats`, check: clicked },
    ]
    const server = await startServer({
      name: 'Linkline',
      script: fileURLToPath(new URL('../src/main.js', import.meta.url)),
      env: linklineEnv(postgres ?? database),
    })
    try {
      const measured: OverviewReport['reads'] = []
      for (const read of reads) {
        const times: number[] = []
        for (let n = -3; n < settings.requests; n++) {
          const began = performance.now()
          const response = await fetch(server.url + read.path, { headers: AUTH })
          const text = await response.text()
          const took = performance.now() - began
          if (n === -3) {
            const body = JSON.parse(text) as { data?: Record<string, unknown> }
            if (response.status !== 200 || body.data === undefined || !read.check(body.data)) {
              throw new Error(`GET ${read.path} answered ${response.status}: ${text.slice(0, 300)}`)
            }
          }
          if (n >= 0) times.push(took)
        }
        times.sort((a, b) => a - b)
        const result = { name: read.name, p50: quantile(times, 0.5), p95: quantile(times, 0.95), max: times.at(-1) as number }
        log(`overview (${settings.backend}): ${read.name}: p50 ${result.p50.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms`)
        measured.push(result)
      }
      return { settings, seedSeconds, clicks, rows, reads: measured }
    } finally {
      await server.stop()
    }
  } finally {
    await postgres?.drop()
  }
}

const firstTop = (d: Record<string, unknown>) => (d.topLinks as { linkId: string }[] | undefined)?.[0]?.linkId
const clicked = (d: Record<string, unknown>) => (d.humanClicks as number) > 0

export function renderOverview(reports: OverviewReport[]): string {
  const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1))
  const lines: string[] = []
  for (const r of reports) {
    const s = r.settings
    lines.push(
      `### Overview statistics (${s.backend}): ${s.links.toLocaleString('en-US')} links, ${r.clicks.toLocaleString('en-US')} clicks over 90 days`,
      '',
      `Seeded in ${r.seedSeconds.toFixed(0)} s as the roll-up leaves them (${Object.entries(r.rows)
        .map(([table, n]) => `${n.toLocaleString('en-US')} ${table}`)
        .join(', ')}); link i has a 1/(i+1) share of the clicks; ${TAGS.toLocaleString('en-US')} tags on half the links. ` +
        `One request at a time, ${s.requests} timed after 3 untimed.`,
      '',
      '| read | p50 ms | p95 ms | max ms |',
      '|---|---|---|---|',
      ...r.reads.map((x) => `| ${x.name} | ${ms(x.p50)} | ${ms(x.p95)} | ${ms(x.max)} |`),
      '',
    )
  }
  return lines.join('\n')
}
