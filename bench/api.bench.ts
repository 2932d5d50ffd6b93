import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { conversationReads, seedConversations } from './conversations.bench.js'
import { runLoad, type Load, type LoadGenerator, type LoadRequest, type LoadResult } from './load.js'
import { pageOf, type Read } from './reads.js'
import { seedClicks, statsReads } from './stats.bench.js'
import {
  BENCH_TOKEN,
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
  /** Conversations of the big owner. */
  conversations: number
  /** Clicks of one link of the big owner. */
  clicks: number
  seconds: number
  /** Concurrent connections for link creates (the latency benches send one request at a time). */
  createConnections: number
}

export interface ApiMeasurement extends LoadResult {
  name: string
  connections: number
  /** The server's VmHWM once this bench was over, in bytes: which read or write grew the peak. */
  peakRssBytes: number
  /** What was resident then, by kind, and the serving isolate's heap spaces by name (their sizes, in bytes): what a peak is made of. */
  resident: ReturnType<ServerProcess['residentBytes']>
  heapSpaces: Record<string, number>
}

export interface ApiReport {
  settings: ApiSettings
  measurements: ApiMeasurement[]
  /** The server's VmHWM after every API bench, in bytes. */
  peakRssBytes: number
}

const AUTH = { authorization: `Bearer ${BENCH_TOKEN}` }
const SMALL_OWNER_LINKS = 1000
const SMALL_OWNER_CONVERSATIONS = 1000
const FILTER_VARIANTS = 100

/**
 * The API over a large data set: one owner with `links` links, `conversations` conversations and a
 * link with `clicks` clicks (seeded in bulk) beside a small owner.
 * Reads are measured one request at a time, so that p50/p99 are the server's latency and not a queue.
 */
export async function benchApi(settings: ApiSettings, workDir: string, log: (line: string) => void): Promise<ApiReport> {
  const databaseFile = join(workDir, 'api.db')
  const epoch = Date.UTC(2025, 0, 1)
  const started = Date.now()
  const now = Date.now()
  let middleConversation = ''
  let statsLink = ''
  await prepareDatabase(databaseFile, async (db) => {
    await insertLinks(db, settings.links, (i) => linkRow(BIG_OWNER, `/a${i.toString(36)}`, destinationOf(i), titleOf(i), epoch + i))
    await insertLinks(db, SMALL_OWNER_LINKS, (i) => linkRow(SMALL_OWNER, `/s${i.toString(36)}`, destinationOf(i), titleOf(i), epoch + i))
    middleConversation = await seedConversations(db, BIG_OWNER, settings.conversations)
    await seedConversations(db, SMALL_OWNER, SMALL_OWNER_CONVERSATIONS)
    statsLink = await seedClicks(db, BIG_OWNER, settings.clicks, now)
  })
  log(
    `api: seeded ${settings.links} + ${SMALL_OWNER_LINKS} links, ${settings.conversations} + ${SMALL_OWNER_CONVERSATIONS} ` +
      `conversations and ${settings.clicks} clicks in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  )

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
      peakRssBytes: server.peakRssBytes(),
      resident: server.residentBytes(),
      heapSpaces: await heapSpaces(server.url),
    })
    // Each filter value matches links/VALUES of the big owner's links; the page holds the 20 newest.
    const perDestination = Math.floor(settings.links / DESTINATION_VALUES)
    const perTitle = Math.floor(settings.links / TITLE_VALUES)
    const reads: Read[] = [
      { name: 'GET /v1/links (newest first, no filter)', paths: ['/v1/links'], ...pageOf(20) },
      {
        name: `GET /v1/links?query[destination]=… (${perDestination} matches)`,
        paths: variants((k) => `/v1/links?query[destination]=${encodeURIComponent(destinationOf(k))}`),
        ...pageOf(Math.min(20, perDestination)),
      },
      {
        name: `GET /v1/links?query[title]=… (${perTitle} matches)`,
        paths: variants((k) => `/v1/links?query[title]=${encodeURIComponent(titleOf(k))}`),
        ...pageOf(Math.min(20, perTitle)),
      },
      { name: 'GET /v1/links?page=500 (offset 9,980)', paths: ['/v1/links?page=500'], ...pageOf(20) },
      ...conversationReads(settings.conversations, middleConversation),
      ...statsReads(statsLink, settings.clicks, now),
    ]
    for (const read of reads) {
      await verifyRead(server, read)
      const requests = read.paths.map((path) => ({ path, headers: AUTH }))
      measurements.push(await measure(read.name, { url: server.url, connections: 1, seconds: settings.seconds, requests, expect: 200 }))
    }

    const create: LoadRequest = {
      method: 'POST',
      path: '/v1/links',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ destination: 'https://shop.example/new?utm_source=bench', title: 'Created by the bench' }),
    }
    const connections = settings.createConnections
    measurements.push(
      await measure('POST /v1/links (random path)', { url: server.url, connections, seconds: settings.seconds, requests: [create], expect: 201 }),
    )
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0)
    for (const m of measurements) {
      const spaces = Object.entries(m.heapSpaces).flatMap(([space, bytes]) => (bytes >= 2 ** 20 ? [`${space} ${mib(bytes)}`] : []))
      log(
        `api: ${m.name}: p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms, ${m.perSecond.toFixed(0)} req/s, peak RSS ${mib(m.peakRssBytes)} MiB ` +
          `(now anon ${mib(m.resident.anon)}, file ${mib(m.resident.file)}, shmem ${mib(m.resident.shmem)}; serving heap ${spaces.join(', ')})`,
      )
    }
    return { settings, measurements, peakRssBytes: server.peakRssBytes() }
  } finally {
    await server.stop()
  }
}

const variants = (path: (k: number) => string) => Array.from({ length: FILTER_VARIANTS }, (_, k) => path(k))

/** A read bench that measured errors or empty pages would be worthless: check the answer first. */
async function verifyRead(server: ServerProcess, read: Read): Promise<void> {
  const path = read.paths[0] as string
  const response = await fetch(server.url + path, { headers: AUTH })
  const text = await response.text()
  if (response.status !== 200 || !read.accept(JSON.parse(text))) {
    throw new Error(`GET ${path} answered ${response.status}, expected 200 with ${read.expected}: ${text.slice(0, 300)}`)
  }
}

/** The serving isolate's heap spaces and their sizes, as the server's own metrics report them. */
async function heapSpaces(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const spaces: Record<string, number> = {}
  for (const [, space, bytes] of text.matchAll(/^nodejs_heap_space_size_total_bytes\{space="(\w+)"\} (\d+)$/gm)) spaces[space as string] = Number(bytes)
  return spaces
}
