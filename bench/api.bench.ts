import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runLoad, type Load, type LoadGenerator, type LoadRequest, type LoadResult } from './load.js'
import {
  BENCH_TOKEN,
  countRows,
  BIG_OWNER,
  destinationOf,
  DESTINATION_VALUES,
  insertLinks,
  linklineEnv,
  linkRow,
  prepareDatabase,
  SMALL_OWNER,
  titleOf,
  TITLE_VALUES,
} from './seed.js'
import { startServer, type ServerProcess } from './servers.js'

export interface ApiSettings {
  generator: LoadGenerator
  /** Links of the big owner (the one the token belongs to). */
  links: number
  seconds: number
  /** Concurrent connections for link creates (the latency benches send one request at a time). */
  createConnections: number
}

export interface ApiMeasurement extends LoadResult {
  name: string
  connections: number
}

export interface ApiReport {
  settings: ApiSettings
  measurements: ApiMeasurement[]
  /** The server's VmHWM after every API bench, in bytes. */
  peakRssBytes: number
  /** Targets of features that this build cannot measure yet, and why. */
  pending: { target: string; reason: string }[]
}

/** Benches of features built on other branches, by the table that shows the feature is present. */
const FEATURE_TARGETS = [
  { table: 'conversations', target: 'conversation list over 100,000 conversations (p50/p99)' },
  { table: 'clicks', target: 'stats of a link with 1,000,000 clicks < 50 ms' },
]

const AUTH = { authorization: `Bearer ${BENCH_TOKEN}` }
const SMALL_OWNER_LINKS = 1000
const FILTER_VARIANTS = 100

/**
 * The API over a large data set: one owner with `links` links (seeded in bulk) beside a small one.
 * Reads are measured one request at a time, so that p50/p99 are the server's latency and not a queue.
 */
export async function benchApi(settings: ApiSettings, workDir: string, log: (line: string) => void): Promise<ApiReport> {
  const databaseFile = join(workDir, 'api.db')
  const epoch = Date.UTC(2025, 0, 1)
  const started = Date.now()
  await prepareDatabase(databaseFile, async (db) => {
    await insertLinks(db, settings.links, (i) => linkRow(BIG_OWNER, `/a${i.toString(36)}`, destinationOf(i), titleOf(i), epoch + i))
    await insertLinks(db, SMALL_OWNER_LINKS, (i) => linkRow(SMALL_OWNER, `/s${i.toString(36)}`, destinationOf(i), titleOf(i), epoch + i))
  })
  log(`api: seeded ${settings.links} + ${SMALL_OWNER_LINKS} links in ${((Date.now() - started) / 1000).toFixed(1)} s`)

  const server = await startServer({
    name: 'Linkline',
    script: fileURLToPath(new URL('../src/main.js', import.meta.url)),
    env: linklineEnv(databaseFile),
  })
  try {
    const measurements: ApiMeasurement[] = []
    const measure = async (name: string, load: Load): Promise<ApiMeasurement> => ({
      ...(await runLoad(settings.generator, load)),
      name,
      connections: load.connections,
    })
    const read = async (name: string, paths: string[], expectedRows: number) => {
      await verifyList(server, paths[0] as string, expectedRows)
      const requests = paths.map((path) => ({ path, headers: AUTH }))
      measurements.push(await measure(name, { url: server.url, connections: 1, seconds: settings.seconds, requests, expect: 200 }))
    }
    // Each filter value matches links/VALUES of the big owner's links; the page holds the 20 newest.
    const perDestination = Math.floor(settings.links / DESTINATION_VALUES)
    const perTitle = Math.floor(settings.links / TITLE_VALUES)
    await read('GET /v1/links (newest first, no filter)', ['/v1/links'], 20)
    await read(
      `GET /v1/links?query[destination]=… (${perDestination} matches)`,
      variants((k) => `/v1/links?query[destination]=${encodeURIComponent(destinationOf(k))}`),
      Math.min(20, perDestination),
    )
    await read(
      `GET /v1/links?query[title]=… (${perTitle} matches)`,
      variants((k) => `/v1/links?query[title]=${encodeURIComponent(titleOf(k))}`),
      Math.min(20, perTitle),
    )
    await read('GET /v1/links?page=500 (offset 9,980)', ['/v1/links?page=500'], 20)

    const create: LoadRequest = {
      method: 'POST',
      path: '/v1/links',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ destination: 'https://shop.example/new?utm_source=bench', title: 'Created by the bench' }),
    }
    const connections = settings.createConnections
    measurements.push(await measure('POST /v1/links (random path)', { url: server.url, connections, seconds: settings.seconds, requests: [create], expect: 201 }))
    for (const m of measurements) log(`api: ${m.name}: p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms, ${m.perSecond.toFixed(0)} req/s`)
    return { settings, measurements, peakRssBytes: server.peakRssBytes(), pending: pendingFeatures(databaseFile) }
  } finally {
    await server.stop()
  }
}

function pendingFeatures(databaseFile: string): ApiReport['pending'] {
  return FEATURE_TARGETS.map(({ table, target }) => ({
    target,
    reason:
      countRows(databaseFile, table) === undefined
        ? `this build has no \`${table}\` table (the feature lands on another branch)`
        : `the \`${table}\` table exists but its bulk seeding is not written yet`,
  }))
}

const variants = (path: (k: number) => string) => Array.from({ length: FILTER_VARIANTS }, (_, k) => path(k))

/** A list bench that measured errors or empty pages would be worthless: check the page first. */
async function verifyList(server: ServerProcess, path: string, expectedRows: number): Promise<void> {
  const response = await fetch(server.url + path, { headers: AUTH })
  const body = (await response.json()) as { data?: { ownerId: string }[] }
  const rows = body.data ?? []
  if (response.status !== 200 || rows.length !== expectedRows || rows.some((row) => row.ownerId !== BIG_OWNER)) {
    throw new Error(`GET ${path} answered ${response.status} with ${rows.length} rows, expected ${expectedRows} of ${BIG_OWNER}`)
  }
}
