import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import SQLite from 'better-sqlite3'
import type { IncomingMessage } from 'node:http'
import { compileControls, isExpired, matchRule } from '../src/links/link-controls.js'
import { median, runLoad, type LoadGenerator } from './load.js'
import { browserUa, drainClicks, rotationRequests } from './redirect.bench.js'
import { BENCH_TOKEN, insertLinks, linklineEnv, prepareDatabase, redirectLinkRow, redirectLinks } from './seed.js'
import { microsPerResponse, startServer, type ServerProcess } from './servers.js'

export interface ControlsSettings {
  generator: LoadGenerator
  links: number
  connections: number
  seconds: number
  warmupSeconds: number
  rounds: number
  /** A build of another commit (its dist/src/main.js), measured with plain links beside this one. */
  baseline: string | undefined
  /** Links created through POST /v1/links/bulk, 1000 per request. */
  bulkLinks: number
}

export interface ControlsReport {
  settings: ControlsSettings
  /** CPU µs per redirect, per round, per server name. */
  rounds: Record<string, number>[]
  servers: string[]
  bulk: { links: number; seconds: number; failed: number }
  /** CPU µs per visit of what the redirect adds for a link with the three rules: expiry check and rule matching (in process, no HTTP). */
  rulesMicros: number
  /** Answers other than 302 (timeouts included), per server, warm-up included. */
  unexpected: Record<string, number>
}

/**
 * Rules that every visit goes through: the first two never match the bench's browsers (a country
 * that no request carries, a language none sends), the third matches the iPhone and Android ones.
 */
const RULES = JSON.stringify([
  { when: { country: ['NZ'] }, destination: 'https://shop.example/nz' },
  { when: { device: ['tablet'], language: ['fr'] }, destination: 'https://shop.example/fr-tablet' },
  { when: { device: ['ios', 'android'] }, destination: 'https://shop.example/app' },
])

/**
 * The link controls' cost on the redirect: Linkline with plain links (and, given a baseline build,
 * the commit before the controls with the same links) against Linkline whose links all carry three
 * targeting rules, loaded alike in rotating order; then 10,000 links created through bulk requests.
 */
export async function benchControls(settings: ControlsSettings, workDir: string, log: (line: string) => void): Promise<ControlsReport> {
  const rulesMicros = measureRules()
  log(`controls: expiry check + 3 rules: ${rulesMicros.toFixed(2)} µs CPU per visit (in process)`)
  const links = redirectLinks(settings.links)
  const row = (i: number) => redirectLinkRow(links, i)
  const plainFile = join(workDir, 'controls-plain.db')
  const rulesFile = join(workDir, 'controls-rules.db')
  await prepareDatabase(plainFile, (db) => insertLinks(db, links.length, row))
  await prepareDatabase(rulesFile, (db) => insertLinks(db, links.length, (i) => ({ ...row(i), rules: RULES })))
  const main = fileURLToPath(new URL('../src/main.js', import.meta.url))
  const servers: ServerProcess[] = []
  try {
    if (settings.baseline !== undefined) {
      // The baseline migrates its own database (it may not know this commit's migrations), then gets the same links.
      const baseFile = join(workDir, 'controls-baseline.db')
      await (await startServer({ name: 'baseline', script: settings.baseline, env: linklineEnv(baseFile) })).stop()
      const sqlite = new SQLite(baseFile)
      const insert = sqlite.prepare(
        'insert into links (id, owner_id, domain, path, destination, title, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      sqlite.transaction(() =>
        links.forEach((_, i) => {
          const r = row(i)
          insert.run(`lnk_base${i}`, r.owner_id, r.domain, r.path, r.destination, null, r.created_at, r.updated_at)
        }),
      )()
      sqlite.close()
      servers.push(await startServer({ name: 'baseline (plain links)', script: settings.baseline, env: linklineEnv(baseFile) }))
    }
    servers.push(await startServer({ name: 'Linkline (plain links)', script: main, env: linklineEnv(plainFile) }))
    servers.push(await startServer({ name: 'Linkline (3 rules per link)', script: main, env: linklineEnv(rulesFile) }))
    const requests = rotationRequests(links)
    for (const server of servers) {
      const answer = await fetch(`${server.url}${links[7]?.path}`, { redirect: 'manual', headers: { 'user-agent': browserUa(0) } })
      if (answer.status !== 302 || answer.headers.get('location') !== links[7]?.destination) throw new Error(`${server.name}: answered ${answer.status}`)
    }
    const unexpected: Record<string, number> = {}
    const measure = async (server: ServerProcess, seconds: number): Promise<number> => {
      const before = server.cpuSeconds()
      const threadsBefore = server.cpuByThread()
      const result = await runLoad(settings.generator, { url: server.url, connections: settings.connections, seconds, requests, expect: 302 })
      await drainClicks(server)
      const micros = microsPerResponse(threadsBefore, server.cpuByThread(), result.responses)
      log(
        `  ${server.name}: ${Object.entries(micros)
          .map(([kind, us]) => `${kind} ${us.toFixed(1)} µs`)
          .join(', ')}`,
      )
      // Timeouts under a loaded machine count here too: reported, not fatal (the answers were checked before).
      unexpected[server.name] = (unexpected[server.name] ?? 0) + result.unexpected
      return ((server.cpuSeconds() - before) / result.responses) * 1e6
    }
    log(`controls: warm-up ${settings.warmupSeconds} s each`)
    for (const server of servers) await measure(server, settings.warmupSeconds)
    const rounds: Record<string, number>[] = []
    for (let round = 0; round < settings.rounds; round++) {
      const order = servers.map((_, i) => servers[(i + round) % servers.length] as ServerProcess)
      const cpu: Record<string, number> = {}
      for (const server of order) cpu[server.name] = await measure(server, settings.seconds)
      rounds.push(cpu)
      log(
        `controls round ${round + 1}/${settings.rounds}: ${Object.entries(cpu)
          .map(([n, v]) => `${n} ${v.toFixed(1)} µs`)
          .join(', ')}`,
      )
    }

    const plain = servers.find((s) => s.name === 'Linkline (plain links)') as ServerProcess
    const started = performance.now()
    let failed = 0
    for (let from = 0; from < settings.bulkLinks; from += 1000) {
      const batch = Array.from({ length: Math.min(1000, settings.bulkLinks - from) }, (_, i) => ({
        destination: `https://shop.example/bulk/${from + i}`,
        title: `Bulk ${from + i}`,
        tags: ['bulk', `b${(from + i) % 10}`],
      }))
      const response = await fetch(`${plain.url}/v1/links/bulk`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ links: batch }),
      })
      if (response.status !== 200) throw new Error(`bulk create answered ${response.status}: ${await response.text()}`)
      failed += ((await response.json()) as { data: { ok: boolean }[] }).data.filter((r) => !r.ok).length
    }
    const bulk = { links: settings.bulkLinks, seconds: (performance.now() - started) / 1000, failed }
    log(`controls: ${bulk.links} links created in bulk in ${bulk.seconds.toFixed(2)} s (${failed} failed)`)
    return { settings, rounds, servers: servers.map((s) => s.name), bulk, unexpected, rulesMicros }
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

/**
 * The redirect's added work for a link with RULES, alone: the same calls the handler makes per visit,
 * over the bench's six User-Agents (parsed once and then cached, as in the server), CPU time per visit.
 */
function measureRules(): number {
  const controls = compileControls(
    { expires_at: Date.now() + 86_400_000, max_clicks: null, expired_url: null, password_hash: null, rules: RULES },
    undefined,
    Date.now(),
  )
  if (controls?.rules === undefined) throw new Error('no rules compiled')
  const requests = Array.from(
    { length: 6 },
    (_, i) => ({ headers: { 'user-agent': browserUa(i), 'accept-language': 'en-US,en;q=0.9' } }) as unknown as IncomingMessage,
  )
  let matched = 0
  const run = (n: number) => {
    for (let i = 0; i < n; i++) {
      if (!isExpired(controls, Date.now()) && matchRule(controls.rules ?? [], requests[i % 6] as IncomingMessage, 'cf-ipcountry') !== undefined) matched++
    }
  }
  run(20_000)
  const before = process.cpuUsage()
  const n = 500_000
  run(n)
  const used = process.cpuUsage(before)
  if (matched === 0) throw new Error('no rule ever matched')
  return (used.user + used.system) / n
}

export function renderControls(report: ControlsReport): string {
  const { settings, rounds, servers, bulk, unexpected, rulesMicros } = report
  const lines = [
    '### Link controls: CPU per redirect, and bulk create',
    '',
    `${settings.links.toLocaleString('en')} links, visited in rotation with 6 browser User-Agents; ${settings.connections} connections, ` +
      `${settings.seconds} s per run, ${settings.rounds} rounds in rotating order after a ${settings.warmupSeconds} s warm-up (load: ${settings.generator}). ` +
      'CPU µs/req is the server process\'s CPU time per response, writing the visits included. "3 rules per link": every visit goes ' +
      'through three targeting rules (country, device + language, device) before the third matches or none does.',
    '',
    `| round | ${servers.join(' | ')} |`,
    `|---|${servers.map(() => '---').join('|')}|`,
    ...rounds.map((r, i) => `| ${i + 1} | ${servers.map((s) => (r[s] ?? NaN).toFixed(1)).join(' | ')} |`),
    `| **median** | ${servers.map((s) => `**${median(rounds.map((r) => r[s] ?? NaN)).toFixed(1)}**`).join(' | ')} |`,
    `| unexpected answers | ${servers.map((s) => String(unexpected[s] ?? 0)).join(' | ')} |`,
    '',
    `**Rules alone:** the expiry check and the three rules cost **${rulesMicros.toFixed(2)} µs** of CPU per visit, measured in ` +
      'process over the same User-Agents (no HTTP, so no noise from the load generator): what a link with rules adds to its redirect.',
    '',
    `**Bulk create:** ${bulk.links.toLocaleString('en')} links (title and two tags each) through ${Math.ceil(bulk.links / 1000)} ` +
      `sequential \`POST /v1/links/bulk\` requests of 1,000 on embedded SQLite: **${bulk.seconds.toFixed(2)} s** in all, ${bulk.failed} failed.`,
    '',
  ]
  return lines.join('\n')
}
