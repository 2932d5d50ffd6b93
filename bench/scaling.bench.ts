import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import pg from 'pg'
import { runLoad, type LoadGenerator, type LoadResult } from './load.js'
import { drainClicks, rotationRequests, sample } from './redirect.bench.js'
import { BENCH_TOKEN, benchPostgres, insertLinks, linklineEnv, prepareDatabase, redirectLinkRow, redirectLinks } from './seed.js'
import { cpuOf, startServer, type ServerProcess } from './servers.js'

export interface ScalingSettings {
  generator: LoadGenerator
  links: number
  connections: number
  /** The measured redirect load. */
  seconds: number
  warmupSeconds: number
  /** Each API load. */
  apiSeconds: number
}

/** What the database server and Redis did for the measured visits, read from their own statistics. */
export interface BackendCost {
  /** PostgreSQL's write-ahead log, bytes: what a replica receives and a backup archives. */
  walBytes: number
  /** Rows inserted, updated and deleted in Linkline's schema. */
  rowsWritten: number
  /** Transactions committed in the database. */
  commits: number
  /** CPU seconds of every `postgres` process and of every `redis-server` process. */
  postgresCpu: number
  redisCpu: number
  /** Commands Redis processed. */
  redisCommands: number
}

export interface ScalingReport {
  settings: ScalingSettings
  redirect: LoadResult & { instanceCpu: number; recordingCpu: number; drainSeconds: number }
  /** Visits the instance counted (its /metrics) over the measured load. */
  visits: number
  backend: BackendCost
  reads: LoadResult
  creates: LoadResult
}

/**
 * One Linkline instance on PostgreSQL + Redis, as a planner needs it: how many redirects it serves
 * with every visit recorded, what each visit costs the database (WAL, rows, commits, CPU) and Redis,
 * and how many API reads and creates it answers. The database and Redis figures are the servers'
 * own statistics, which count everything they do: run it on a machine where nothing else uses them.
 */
export async function benchScaling(settings: ScalingSettings, log: (line: string) => void): Promise<ScalingReport> {
  const postgres = await benchPostgres()
  if (postgres === undefined) throw new Error('the scaling bench needs TEST_DATABASE_URL and TEST_REDIS_URL')
  const links = redirectLinks(settings.links)
  await prepareDatabase(postgres, (db) => insertLinks(db, links.length, (i) => redirectLinkRow(links, i)))
  const server = await startServer({ name: 'Linkline', script: fileURLToPath(new URL('../src/main.js', import.meta.url)), env: linklineEnv(postgres) })
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  await admin.connect()
  const redis = new Redis(postgres.redisUrl)
  try {
    const requests = rotationRequests(links)
    const redirectLoad = (seconds: number) =>
      runLoad(settings.generator, { url: server.url, connections: settings.connections, seconds, requests, expect: 302 })
    for (let i = 0; i < 2; i++) {
      await redirectLoad(settings.warmupSeconds)
      await drainClicks(server)
    }
    const before = { backend: await backendCounters(admin, redis, postgres.name), threads: server.cpuByThread(), served: await served(server) }
    const cpuBefore = server.cpuSeconds()
    log(`scaling: measuring ${settings.seconds} s of redirects over ${settings.links} links on PostgreSQL + Redis`)
    const result = await redirectLoad(settings.seconds)
    const { drainSeconds } = await drainClicks(server)
    const after = { backend: await backendCounters(admin, redis, postgres.name), threads: server.cpuByThread(), served: await served(server) }
    const redirect = {
      ...result,
      instanceCpu: server.cpuSeconds() - cpuBefore,
      recordingCpu: after.threads.recording - before.threads.recording,
      drainSeconds,
    }
    const backend = Object.fromEntries(
      Object.entries(after.backend).map(([key, value]) => [key, value - before.backend[key as keyof BackendCost]]),
    ) as unknown as BackendCost
    const { reads, creates } = await apiLoads(server, settings)
    log(`scaling: ${result.perSecond.toFixed(0)} redirects/s, ${reads.perSecond.toFixed(0)} reads/s, ${creates.perSecond.toFixed(0)} creates/s`)
    return { settings, redirect, visits: after.served - before.served, backend, reads, creates }
  } finally {
    await admin.end()
    redis.disconnect()
    await server.stop()
    await postgres.drop()
  }
}

const AUTH = { authorization: `Bearer ${BENCH_TOKEN}` }

/** A link's page (GET /v1/links/{id}) and link creates, 10 connections each. */
async function apiLoads(server: ServerProcess, settings: ScalingSettings): Promise<{ reads: LoadResult; creates: LoadResult }> {
  const body = JSON.stringify({ destination: 'https://shop.example/new?utm_source=bench', title: 'Created by the bench' })
  const headers = { ...AUTH, 'content-type': 'application/json' }
  const created = await fetch(`${server.url}/v1/links`, { method: 'POST', headers, body })
  if (created.status !== 201) throw new Error(`POST /v1/links answered ${created.status}: ${await created.text()}`)
  const { id } = (await created.json()) as { id: string }
  const load = { url: server.url, connections: 10, seconds: settings.apiSeconds }
  const reads = await runLoad(settings.generator, { ...load, requests: [{ path: `/v1/links/${id}`, headers: AUTH }], expect: 200 })
  const creates = await runLoad(settings.generator, { ...load, requests: [{ method: 'POST', path: '/v1/links', headers, body }], expect: 201 })
  return { reads, creates }
}

const served = async (server: ServerProcess) => sample(await (await fetch(`${server.url}/metrics`)).text(), 'linkline_redirects_total{outcome="found"}') ?? NaN

async function backendCounters(admin: pg.Client, redis: Redis, schema: string): Promise<BackendCost> {
  // Backends report their table statistics within a second of a transaction's end.
  await sleep(1500)
  const { rows } = await admin.query<{ wal: string; commits: string; rows: string | null }>(
    `select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as wal,
            (select xact_commit from pg_stat_database where datname = current_database())::text as commits,
            (select sum(n_tup_ins + n_tup_upd + n_tup_del) from pg_stat_user_tables where schemaname = $1)::text as rows`,
    [schema],
  )
  const row = rows[0] as (typeof rows)[number]
  return {
    walBytes: Number(row.wal),
    commits: Number(row.commits),
    rowsWritten: Number(row.rows ?? 0),
    postgresCpu: cpuOfProcesses('postgres'),
    redisCpu: cpuOfProcesses('redis-server'),
    redisCommands: Number(/^total_commands_processed:(\d+)/m.exec(await redis.info('stats'))?.[1] ?? NaN),
  }
}

/** CPU seconds of every process of this name on the machine (0 when none is visible). */
function cpuOfProcesses(name: string): number {
  let total = 0
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name) total += cpuOf(`/proc/${pid}/stat`)
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total
}

/** The days planned for; the peak hour's rate is assumed at four times the day's average. */
const DAILY_VISITS = [1_000_000, 10_000_000, 100_000_000, 1_000_000_000]
const PEAK_FACTOR = 4
/** Cores are planned at half their capacity at the peak: room for a slow neighbour, a deploy, a failed instance. */
const HEADROOM = 0.5
/** Cores of one Linkline instance in the plan. */
const INSTANCE_CORES = 2

export function renderScaling(report: ScalingReport): string {
  const { redirect, backend, visits } = report
  const per = (value: number) => value / visits
  const micros = (seconds: number) => (per(seconds) * 1e6).toFixed(1)
  const n = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
  // Commits come from each instance's flushes and roll-ups, once a second or so whatever its traffic.
  const commitsPerSecond = backend.commits / (redirect.seconds + redirect.drainSeconds)
  const plan = DAILY_VISITS.map((daily) => {
    const peak = (daily / 86_400) * PEAK_FACTOR
    const instanceCores = (peak * per(redirect.instanceCpu)) / HEADROOM
    const instances = Math.max(2, Math.ceil(instanceCores / INSTANCE_CORES))
    return { daily, peak, instanceCores, instances }
  })
  const row = (label: string, cell: (p: (typeof plan)[number]) => string) => `| ${label} | ${plan.map(cell).join(' | ')} |`
  const lines = [
    `${report.settings.links.toLocaleString('en-US')} links requested in rotation by browsers, ${report.settings.connections} connections, ` +
      `${report.settings.seconds} s, after two warm-ups; every visit written, rolled up and in its click block before the counters are read again.`,
    '',
    '| measured on one instance (PostgreSQL + Redis) | figure |',
    '|---|---|',
    `| redirects answered, every visit recorded | ${n(redirect.perSecond)}/s (p50 ${redirect.p50.toFixed(2)} ms, p99 ${redirect.p99.toFixed(2)} ms), ${n(visits)} visits |`,
    `| Linkline's CPU per visit (serving and recording) | ${micros(redirect.instanceCpu)} µs, of which recording ${micros(redirect.recordingCpu)} µs |`,
    `| PostgreSQL's CPU per visit | ${micros(backend.postgresCpu)} µs |`,
    `| PostgreSQL's WAL per visit | ${n(per(backend.walBytes), 1)} bytes |`,
    `| rows written per visit (inserted, updated, deleted) | ${n(per(backend.rowsWritten), 3)} |`,
    `| transactions committed a second (flushes and roll-ups: per instance, not per visit) | ${n(commitsPerSecond, 1)} |`,
    `| Redis: CPU and commands per visit | ${micros(backend.redisCpu)} µs, ${n(per(backend.redisCommands), 3)} |`,
    `| every visit rolled up and in its click block after the load (mostly the blocks' 30 s wait) | ${redirect.drainSeconds.toFixed(1)} s |`,
    `| API: a link read (GET /v1/links/{id}), 10 connections | ${n(report.reads.perSecond)}/s (p99 ${report.reads.p99.toFixed(2)} ms) |`,
    `| API: link creates (POST /v1/links), 10 connections | ${n(report.creates.perSecond)}/s (p99 ${report.creates.p99.toFixed(2)} ms) |`,
    '',
    `Planned from these figures for a peak hour at ${PEAK_FACTOR}× the day's average, each core at most ${HEADROOM * 100} % busy at the peak, ` +
      `instances of ${INSTANCE_CORES} cores, at least two of them (failover):`,
    '',
    `| visits a day | ${plan.map((p) => `${n(p.daily / 1e6)} million`).join(' | ')} |`,
    `|---|${plan.map(() => '---').join('|')}|`,
    row('visits a second, average / peak', (p) => `${n(p.daily / 86_400)} / ${n(p.peak)}`),
    row('Linkline instances (cores busy at the peak)', (p) => `${p.instances} (${n(p.peak * per(redirect.instanceCpu), 2)})`),
    row('PostgreSQL cores busy at the peak', (p) => n(p.peak * per(backend.postgresCpu), 2)),
    row('PostgreSQL WAL a day, GiB', (p) => n((per(backend.walBytes) * p.daily) / 2 ** 30, 1)),
    row('PostgreSQL WAL at the peak, MiB/s', (p) => n((per(backend.walBytes) * p.peak) / 2 ** 20, 2)),
    row('rows written a second at the peak', (p) => n(per(backend.rowsWritten) * p.peak)),
    row('commits a second (about the same all day)', (p) => n(commitsPerSecond * p.instances, 1)),
    row('Redis commands a second at the peak', (p) => n(per(backend.redisCommands) * p.peak)),
  ]
  return lines.join('\n')
}
