/**
 * Measures the statistics endpoint for one link with many clicks (default 1,000,000, spread over the
 * last 90 days). The clicks are written through the stats repository in large batches — the same
 * transactions as the flusher, without the User-Agent parsing — and the endpoint is then timed over
 * HTTP on the real server. Usage: npm run build && node dist/bench/stats-latency.js
 * Environment: CLICKS (default 1000000), DATABASE_URL (default: a temporary SQLite file).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createContainer } from '../src/container.js'
import { createStatsRepository } from '../src/stats/stats.repository.js'
import type { NewClickRow } from '../src/stats/stats.table.js'
import { freePort } from '../test/build-test-app.js'
import { send } from '../test/http-client.js'

const CLICKS = Number(process.env.CLICKS ?? 1_000_000)
const BATCH = 10_000
const DAY = 86_400_000
const RUNS = 20

const BROWSERS = [['Chrome', 'Windows', 'desktop'], ['Mobile Safari', 'iOS', 'mobile'], ['Firefox', 'Linux', 'desktop'], ['Chrome', 'Android', 'mobile'], ['Edge', 'Windows', 'desktop']] as const
const pick = <T>(list: readonly T[], i: number) => list[i % list.length] as T

const dir = mkdtempSync(join(tmpdir(), 'linkline-bench-'))
const port = await freePort()
const config = loadConfig({ PORT: String(port), LOG_LEVEL: 'silent', DATABASE_URL: process.env.DATABASE_URL ?? `sqlite:${join(dir, 'bench.db')}` })
const container = createContainer(config)
await container.start()
const app = await buildApp(container)
await app.listen({ port, host: '127.0.0.1' })
const { token } = await container.tokens.create({ ownerId: 'bench' })
const base = `http://127.0.0.1:${port}`
const headers = { host: `localhost:${port}` }
const link = (await send(base, 'POST', '/v1/links', { token, headers, json: { destination: 'https://dest.example/' } })).body.data

const repo = createStatsRepository(container.storage.db)
const now = Date.now()
const seedStarted = performance.now()
for (let done = 0; done < CLICKS; done += BATCH) {
  const rows: NewClickRow[] = []
  for (let i = done; i < Math.min(done + BATCH, CLICKS); i++) {
    const [browser, os, device] = pick(BROWSERS, i)
    rows.push({
      link_id: link.id,
      clicked_at: now - Math.floor(((CLICKS - i) / CLICKS) * 90 * DAY),
      is_bot: i % 20 === 0 ? 1 : 0,
      is_qr: i % 7 === 0 ? 1 : 0,
      referrer: i % 3 === 0 ? null : `ref${i % 40}.example`,
      browser,
      os,
      device,
      country: pick(['US', 'DE', 'FR', 'GB', 'JP', 'BR', 'IN', 'CA', 'NL', 'ES', 'IT', 'SE'], i),
      visitor_key: `visitor-${i % 50_000}`,
    })
  }
  await repo.writeBatch(rows)
}
const seedSeconds = (performance.now() - seedStarted) / 1000

const cases = [
  ['default (last 30 days, by day)', ''],
  ['last 30 days, by hour (720 buckets)', `?from=${new Date(now - 30 * DAY).toISOString()}&interval=hour`],
  ['last 90 days, by day', `?from=${new Date(now - 90 * DAY).toISOString().slice(0, 10)}`],
  ['everything, by month', '?from=2020-01-01&interval=month'],
]
console.log(`${config.databaseUrl.split(':')[0]}: ${CLICKS} clicks seeded in ${seedSeconds.toFixed(1)} s`)
console.log('| request | median ms | max ms | totalClicks |')
console.log('|---|---|---|---|')
for (const [name, query] of cases) {
  const times: number[] = []
  let total = 0
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now()
    const r = await send(base, 'GET', `/v1/links/${link.id}/stats${query}`, { token, headers })
    times.push(performance.now() - started)
    if (r.status !== 200) throw new Error(`${name}: ${r.status} ${r.text}`)
    total = r.body.data.totalClicks
  }
  times.sort((a, b) => a - b)
  console.log(`| ${name} | ${(times[RUNS / 2] as number).toFixed(1)} | ${(times[RUNS - 1] as number).toFixed(1)} | ${total} |`)
}
await app.close()
await container.close()
rmSync(dir, { recursive: true, force: true })
