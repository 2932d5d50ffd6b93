import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runLoad, type LoadGenerator, type LoadRequest, type LoadResult } from './load.js'
import { benchPostgres, insertLinks, linklineEnv, prepareDatabase, recordedVisits, redirectLinkRow, redirectLinks } from './seed.js'
import { microsPerResponse, startServer, type ServerProcess, type ThreadCpu } from './servers.js'

/** Common browsers, none a bot, so Linkline counts every visit as a human click; visits rotate through them. */
const BROWSER_UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
]
export const browserUa = (i: number) => BROWSER_UAS[i % BROWSER_UAS.length] as string
/** One GET per link, each with the next browser User-Agent: the redirect benches' load. */
export const rotationRequests = (links: readonly { path: string }[]): LoadRequest[] =>
  links.map((link, i) => ({ path: link.path, headers: { 'user-agent': browserUa(i) } }))

/**
 * Warm-ups of each server per round, at least: with one, V8 was still compiling Linkline's code during
 * the measured run (340 ms of optimizing compiles in an 8 s run, ~0.6 µs per redirect on its helper
 * threads; 26–48 ms after three). The click writer's code gets hot only once per roll-up, and each
 * Linkline warm-up waits for its visits' roll-up. A server runs for days: the steady state is what counts.
 */
export const WARMUPS_MIN = 3
/** Linkline's warm-ups per round at most, until one has visited every path. */
const WARMUPS_MAX = 5

export interface RedirectSettings {
  generator: LoadGenerator
  /** Links seeded, and requested in rotation unless `hot`. */
  links: number
  /** Every request to one link: a flood on a hot link. */
  hot?: boolean
  /** Linkline on embedded SQLite (as it ships), or on PostgreSQL + Redis (one instance; TEST_DATABASE_URL, TEST_REDIS_URL). */
  backend?: 'sqlite' | 'postgres'
  connections: number
  seconds: number
  warmupSeconds: number
  rounds: number
  /** When set, both servers run with --cpu-prof and write one profile per thread into bare/ and linkline/ here on exit. */
  cpuProfDir: string | undefined
}

export interface Measured extends LoadResult {
  /** Server CPU time per response, in microseconds (Linkline's includes recording the run's visits). */
  cpuMicros: number
  /** That CPU time as a share of one core over the run: above 100 % when a second thread worked beside the first. */
  cpuShare: number
  /** Linkline: visits not yet written when the load stopped, and how long they then took to be written and rolled up. */
  clicks?: { backlog: number; drainSeconds: number }
  /** CPU time per response by kind of thread. */
  threadMicros: ThreadCpu
}

export interface RedirectReport {
  settings: RedirectSettings
  /** Two pairs of runs next to each other in time per round (its processes): A B, then B A. */
  rounds: { bare: Measured; linkline: Measured }[]
  /** Linkline's own count of redirects answered (the /metrics of each round's process), verification and warm-ups included. */
  redirectsServed: number
  /** Visits Linkline dropped instead of recording (the /metrics of each round's process), or undefined when it does not count drops. */
  clicksDropped: number | undefined
  /** Visits in Linkline's click blocks after it shut down. */
  clicksRecorded: number
}

/**
 * The redirect against the limit of Node here: the bare server and Linkline, each a child process,
 * loaded alone by the same load generator settings. Each round starts a fresh pair of processes, warms
 * both up, then measures them twice in mirrored order (A B B A; the next round B A A B): a drift of the
 * machine's speed during the round (seen: the bare server at 18 µs per request in one run, 25 in the
 * next) then weighs on both alike, and each pair of runs next to each other in time is one ratio.
 */
export async function benchRedirect(settings: RedirectSettings, workDir: string, log: (line: string) => void): Promise<RedirectReport> {
  const links = redirectLinks(settings.links)
  const postgres = settings.backend === 'postgres' ? await benchPostgres() : undefined
  if (settings.backend === 'postgres' && postgres === undefined) throw new Error('the PostgreSQL redirect bench needs TEST_DATABASE_URL and TEST_REDIS_URL')
  const database = postgres ?? join(workDir, `redirect-${settings.hot ? 'hot' : 'rotation'}-${settings.links}.db`)
  await prepareDatabase(database, (db) => insertLinks(db, links.length, (i) => redirectLinkRow(links, i)))

  const profile = (name: string) => (settings.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(settings.cpuProfDir, name)}`])
  const requests: LoadRequest[] = settings.hot
    ? BROWSER_UAS.map((ua) => ({ path: (links[0] as (typeof links)[number]).path, headers: { 'user-agent': ua } }))
    : rotationRequests(links)
  const measure = async (server: ServerProcess, seconds: number, recording: boolean): Promise<Measured> => {
    const cpuBefore = server.cpuSeconds()
    const threadsBefore = server.cpuByThread()
    const result = await runLoad(settings.generator, { url: server.url, connections: settings.connections, seconds, requests, expect: 302 })
    // Linkline records visits in the background: wait until the run's visits are written and rolled up,
    // so that their CPU counts and a writer that fell behind shows (rather than catching up during the next run).
    const clicks = recording ? await drainClicks(server) : undefined
    const cpu = server.cpuSeconds() - cpuBefore
    return {
      ...result,
      cpuMicros: (cpu / result.responses) * 1e6,
      cpuShare: cpu / result.seconds,
      clicks,
      threadMicros: microsPerResponse(threadsBefore, server.cpuByThread(), result.responses),
    }
  }

  const rounds: RedirectReport['rounds'] = []
  let redirectsServed = 0
  let clicksDropped: number | undefined = 0
  try {
    for (let round = 0; round < settings.rounds; round++) {
      // A fresh pair of processes each round: a JIT or garbage-collection state that one process happens
      // to settle in (seen: the bare server's helper threads at 3 µs per request for a whole run) then
      // weighs on one round, not on the median.
      const bare = await startServer({
        name: 'bare server',
        script: fileURLToPath(new URL('./bare-server.js', import.meta.url)),
        nodeArgs: profile('bare'),
        args: [String(settings.links)],
      })
      const linkline = await startServer({
        name: 'Linkline',
        script: fileURLToPath(new URL('../src/main.js', import.meta.url)),
        nodeArgs: profile('linkline'),
        env: linklineEnv(database),
      })
      try {
        for (const server of [bare, linkline]) await verify(server, links)
        // Warm-up: JIT, sockets, and Linkline's redirect cache. Every path must be visited: wrk starts each
        // run at the first path, so a warm-up that ends before the last one (100,000 cold links on a slow
        // machine) left the measured run answering from the database, not the cache. Hence again until
        // one warm-up covers them all.
        const warmUp = async (server: ServerProcess) => {
          if (server === bare) {
            for (let warmups = 1; warmups <= WARMUPS_MIN; warmups++) await measure(bare, settings.warmupSeconds, false)
            return
          }
          for (let warmups = 1; warmups <= WARMUPS_MAX; warmups++) {
            const covered = (await measure(linkline, settings.warmupSeconds, true)).responses >= requests.length
            if (covered && warmups >= WARMUPS_MIN) break
          }
        }
        log(`redirect round ${round + 1}/${settings.rounds}: new processes, warm-ups of ${settings.warmupSeconds} s each`)
        // Linkline's roll-up comes an interval after the first batch written since the last one
        // (stats/clicks.ts): whenever its measured run starts, the run's visits are rolled up once, after
        // it, during the drain that the measurement waits for.
        const [first, second] = round % 2 === 0 ? [bare, linkline] : [linkline, bare]
        for (const server of [first, second]) await warmUp(server)
        for (const order of [
          [first, second],
          [second, first],
        ]) {
          const results = new Map<ServerProcess, Measured>()
          for (const server of order) results.set(server, await measure(server, settings.seconds, server === linkline))
          const b = results.get(bare) as Measured
          const l = results.get(linkline) as Measured
          rounds.push({ bare: b, linkline: l })
          log(`redirect round ${round + 1}/${settings.rounds}: bare ${b.perSecond.toFixed(0)} req/s, Linkline ${l.perSecond.toFixed(0)} req/s`)
        }
        const metrics = await (await fetch(`${linkline.url}/metrics`)).text()
        redirectsServed += sample(metrics, 'linkline_redirects_total{outcome="found"}') ?? NaN
        const dropped = sample(metrics, 'linkline_clicks_dropped_total{reason="buffer_full"}')
        clicksDropped = clicksDropped === undefined || dropped === undefined ? undefined : clicksDropped + dropped
      } finally {
        await Promise.all([bare.stop(), linkline.stop()])
      }
    }
    return { settings, rounds, redirectsServed, clicksDropped, clicksRecorded: await recordedVisits(database) }
  } finally {
    await postgres?.drop()
  }
}

/** A benchmark that measured 404s would be worthless: checks a sample of paths on a server first. */
async function verify(server: ServerProcess, links: { path: string; destination: string }[]): Promise<void> {
  for (const link of [links[0], links[Math.floor(links.length / 2)], links.at(-1)]) {
    if (link === undefined) continue
    const response = await fetch(server.url + link.path, { redirect: 'manual', headers: { 'user-agent': browserUa(0) } })
    const location = response.headers.get('location')
    if (response.status !== 302 || location !== link.destination || !response.headers.get('x-request-id')) {
      throw new Error(`${server.name}: GET ${link.path} answered ${response.status} to ${location}, expected 302 to ${link.destination}`)
    }
  }
}

/**
 * Polls Linkline's click gauges until every visit is written, rolled up and in its click block. The
 * roll-up comes an interval (LINKLINE_CLICK_ROLLUP_INTERVAL_MS) after the run's first batch was
 * written, the blocks up to LINKLINE_CLICK_BLOCK_INTERVAL_MS after it: an idle wait of up to that
 * long. Each poll is a /metrics scrape that the server's CPU time counts, ~1.3 ms of its serving thread
 * (prom-client's default metrics): once a second until the visits are counted, then, while only their
 * blocks wait, every 5 s (a 5 s run's drain would otherwise add ~0.2 µs per redirect).
 */
export async function drainClicks(server: ServerProcess): Promise<{ backlog: number; drainSeconds: number }> {
  const started = performance.now()
  const waiting = async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    const buffered = sample(metrics, 'linkline_click_buffer_size') ?? NaN
    // Every visit written and not in a block yet, counted or not: the journal's gauge is a part of it.
    const left = buffered + (sample(metrics, 'linkline_click_blocks_pending') ?? 0)
    return { left, counted: buffered + (sample(metrics, 'linkline_click_journal_size') ?? 0) === 0 }
  }
  const first = await waiting()
  for (let { left, counted } = first; left > 0; { left, counted } = await waiting()) {
    if (performance.now() - started > 60_000)
      throw new Error(`Linkline still had ${left} visits to write, roll up or put in blocks a minute after the load stopped`)
    await new Promise((resolve) => setTimeout(resolve, counted ? 5000 : 1000))
  }
  return { backlog: first.left, drainSeconds: (performance.now() - started) / 1000 }
}

/** The value of one sample (name with labels, as exposed) in Prometheus text, or undefined when absent. */
export function sample(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}
