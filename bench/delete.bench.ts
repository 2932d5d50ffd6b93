// Deleting a link with many clicks, measured from outside: how long the DELETE takes to answer, how
// long the background purge runs, and what a client that keeps visiting another (cached) link sees
// meanwhile, against the same client just before (the ratio is what counts: the machines are noisy).
// Usage: npm run bench:delete [-- --clicks 560000]
import { mkdtempSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import SQLite from 'better-sqlite3'
import { quantile } from './load.js'
import { seedClicks } from './stats.bench.js'
import { BENCH_DOMAIN, BENCH_TOKEN, BIG_OWNER, insertLinks, linklineEnv, linkRow, prepareDatabase } from './seed.js'
import { startServer } from './servers.js'

const { values } = parseArgs({ options: { clicks: { type: 'string', default: '560000' } } })
const clicks = Number(values.clicks)
const BASELINE_MS = 3000
const PURGE_DEADLINE_MS = 300_000
const PROBE_RATE = 200
const log = (line: string) => console.error(`[bench:delete] ${line}`)

const agent = new Agent({ keepAlive: true, maxSockets: 1 })
/** One request; resolves to its latency in ms and its status. */
function timed(url: string, method: string, headers: Record<string, string> = {}): Promise<{ ms: number; status: number }> {
  const started = process.hrtime.bigint()
  return new Promise((resolve, reject) => {
    request(url, { method, agent, headers: { host: BENCH_DOMAIN, ...headers } }, (res) => {
      res.resume()
      res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, status: res.statusCode ?? 0 }))
    })
      .on('error', reject)
      .end()
  })
}

/**
 * Visits `url` one request at a time, about PROBE_RATE a second (a client, not a flood: each visit is
 * also recorded, by the same thread that purges), until `until()` says stop; the latencies, in ms.
 */
async function probe(url: string, until: () => boolean): Promise<number[]> {
  const latencies: number[] = []
  while (!until()) {
    const { ms, status } = await timed(url, 'GET')
    if (status !== 302) throw new Error(`probe: ${status}`)
    latencies.push(ms)
    await new Promise((resolve) => setTimeout(resolve, 1000 / PROBE_RATE))
  }
  return latencies.sort((a, b) => a - b)
}

/**
 * The server's own event-loop lag, p99 and max in ms, since the previous call (prom-client's
 * default metrics reset the delay histogram at every scrape): what the serving thread suffered,
 * without the client's or the network's share.
 */
async function serverLag(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const read = (name: string) => (Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]) * 1000).toFixed(1)
  return `server event-loop lag p99 ${read('nodejs_eventloop_lag_p99_seconds')} ms, max ${read('nodejs_eventloop_lag_max_seconds')} ms`
}

const summary = (name: string, sorted: number[]) =>
  `${name}: ${sorted.length} redirects, p50 ${quantile(sorted, 0.5).toFixed(2)} ms, p99 ${quantile(sorted, 0.99).toFixed(2)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(2)} ms`

const workDir = mkdtempSync(join(tmpdir(), 'linkline-bench-delete-'))
const file = join(workDir, 'delete.db')
try {
  let linkId = ''
  const seeded = Date.now()
  await prepareDatabase(file, async (db) => {
    await insertLinks(db, 1, () => linkRow(BIG_OWNER, '/hot', 'https://shop.example/hot', null, Date.now()))
    linkId = await seedClicks(db, BIG_OWNER, clicks, Date.now())
  })
  log(`seeded one link with ${clicks} clicks in ${((Date.now() - seeded) / 1000).toFixed(1)} s`)

  const server = await startServer({ name: 'Linkline', script: fileURLToPath(new URL('../src/main.js', import.meta.url)), env: linklineEnv(file) })
  const reader = new SQLite(file, { readonly: true })
  // The raw visits are in click blocks (migration 0013 replaced the clicks table), which the purge deletes.
  const remaining = () => (reader.prepare('select coalesce(sum(clicks), 0) as n from click_blocks where link_id = ?').get(linkId) as { n: number }).n
  try {
    const hot = `${server.url}/hot`
    await timed(hot, 'GET') // fills the redirect cache
    await serverLag(server.url)
    const baselineEnd = Date.now() + BASELINE_MS
    const baseline = await probe(hot, () => Date.now() >= baselineEnd)
    const baselineLag = await serverLag(server.url)

    let purged = false
    let purgeMs = NaN
    const startedAt = Date.now()
    const during = probe(hot, () => purged)
    const deleted = await timed(`${server.url}/v1/links/${linkId}`, 'DELETE', { authorization: `Bearer ${BENCH_TOKEN}` })
    if (deleted.status !== 200) throw new Error(`DELETE answered ${deleted.status}`)
    while (!purged) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      purged = remaining() === 0 || Date.now() - startedAt > PURGE_DEADLINE_MS
      purgeMs = Date.now() - startedAt
    }
    const latencies = await during
    const purgeLag = await serverLag(server.url)
    console.log(
      [
        `Deleting a link with ${clicks.toLocaleString('en')} clicks (SQLite, one instance; ${new Date().toISOString().slice(0, 10)})`,
        `DELETE answered in ${deleted.ms.toFixed(1)} ms; the purge removed every click in ${(purgeMs / 1000).toFixed(1)} s${remaining() === 0 ? '' : ' (NOT FINISHED)'}`,
        `${summary('before the delete', baseline)}; ${baselineLag}`,
        `${summary('during the purge ', latencies)}; ${purgeLag}`,
        `ratio during/before: p50 ${(quantile(latencies, 0.5) / quantile(baseline, 0.5)).toFixed(2)}×, p99 ${(quantile(latencies, 0.99) / quantile(baseline, 0.99)).toFixed(2)}×`,
      ].join('\n'),
    )
  } finally {
    reader.close()
    await server.stop()
  }
} finally {
  agent.destroy()
  rmSync(workDir, { recursive: true, force: true })
}
