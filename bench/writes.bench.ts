import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, runLoad, type LoadGenerator, type LoadResult } from './load.js'
import type { TargetRow } from './report.js'
import { BENCH_TOKEN, linklineEnv, prepareDatabase } from './seed.js'
import { startServer, type ServerProcess } from './servers.js'

export interface WritesSettings {
  generator: LoadGenerator
  /** Concurrent connections sending POST /v1/links. */
  connections: number
  /** Connections sending redirects beside the creates, in the mixed load. */
  mixedRedirectConnections: number
  seconds: number
  rounds: number
  /** Links created through POST /v1/links/bulk per round, 1000 per request. */
  bulkLinks: number
  /** A build of another commit (its dist/src/main.js), measured alike, alternating with this one. */
  baseline: string | undefined
  /** Where this build's server writes a CPU profile (--cpu-prof), if set. */
  cpuProfDir: string | undefined
}

export interface WritesRound {
  /** Per server name: creates answered 201 per second. */
  creates: Record<string, number>
  /** Per server name: the server's CPU (every thread) per create, in µs: less sensitive than creates/s to what else the host runs. */
  cpu: Record<string, number>
  /** Per server name: seconds for `bulkLinks` links in bulk. */
  bulk: Record<string, number>
  /** Per server name: redirects to one link from `mixedRedirectConnections` connections while creates run as above. */
  mixed: Record<string, { redirects: LoadResult; creates: LoadResult }>
}

export interface WritesReport {
  settings: WritesSettings
  servers: string[]
  rounds: WritesRound[]
  /** Answers other than 201 to the creates, per server (timeouts included). */
  unexpected: Record<string, number>
  /** Load average (1 min) before and after. */
  load: [number, number]
}

/** The part's settings, alone (`--only writes`) and in the full run alike. */
export const writesSettings = (generator: LoadGenerator, quick: boolean, baseline: string | undefined, cpuProfDir: string | undefined): WritesSettings => ({
  generator,
  connections: 10,
  mixedRedirectConnections: 20,
  seconds: quick ? 2 : 5,
  rounds: quick ? 2 : 3,
  bulkLinks: 10_000,
  baseline,
  cpuProfDir,
})

const AUTH = { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' }
const CREATE = {
  method: 'POST',
  path: '/v1/links',
  headers: AUTH,
  body: JSON.stringify({ destination: 'https://shop.example/new?utm_source=bench', title: 'Created' }),
}
/** The one link the mixed load redirects to. */
const HOT_PATH = '/hot'

/**
 * Link writes on embedded SQLite (every acknowledged write durable): POST /v1/links
 * with a random path from `connections` connections, then `bulkLinks` links through sequential bulk
 * requests of 1,000 (title and two tags each). Given a baseline build, both servers run side by side
 * on databases of their own and are measured in rotating order, so that the machine's noise falls
 * on both alike.
 */
export async function benchWrites(settings: WritesSettings, workDir: string, log: (line: string) => void): Promise<WritesReport> {
  const loadBefore = loadavg()[0] as number
  const builds: { name: string; script: string; nodeArgs: string[] }[] = [
    {
      name: 'this build',
      script: fileURLToPath(new URL('../src/main.js', import.meta.url)),
      nodeArgs: settings.cpuProfDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', settings.cpuProfDir],
    },
  ]
  if (settings.baseline !== undefined) builds.push({ name: 'baseline', script: settings.baseline, nodeArgs: [] })
  const servers: ServerProcess[] = []
  try {
    for (const build of builds) {
      const file = join(workDir, `writes-${servers.length}.db`)
      await prepareDatabase(file, async () => {})
      const server = await startServer({ name: build.name, script: build.script, nodeArgs: build.nodeArgs, env: linklineEnv(file) })
      servers.push(server)
      const hot = await fetch(`${server.url}/v1/links`, {
        method: 'POST',
        headers: AUTH,
        body: JSON.stringify({ destination: 'https://shop.example/hot', path: HOT_PATH }),
      })
      if (hot.status !== 201) throw new Error(`${server.name}: the mixed load's link was answered ${hot.status}: ${await hot.text()}`)
    }
    const unexpected: Record<string, number> = {}
    const rounds: WritesRound[] = []
    for (let round = 0; round < settings.rounds; round++) {
      const order = servers.map((_, i) => servers[(i + round) % servers.length] as ServerProcess)
      const result: WritesRound = { creates: {}, cpu: {}, bulk: {}, mixed: {} }
      for (const server of order) {
        const creates = { url: server.url, connections: settings.connections, seconds: settings.seconds, requests: [CREATE], expect: 201 }
        const cpuBefore = server.cpuSeconds()
        const load = await runLoad(settings.generator, creates)
        unexpected[server.name] = (unexpected[server.name] ?? 0) + load.unexpected
        result.creates[server.name] = load.perSecond
        result.cpu[server.name] = ((server.cpuSeconds() - cpuBefore) * 1e6) / load.responses
        result.bulk[server.name] = await bulkCreate(server, settings.bulkLinks, round)
        const [redirects, mixedCreates] = await Promise.all([
          runLoad(settings.generator, {
            url: server.url,
            connections: settings.mixedRedirectConnections,
            seconds: settings.seconds,
            requests: [{ path: HOT_PATH }],
            expect: 302,
          }),
          runLoad(settings.generator, creates),
        ])
        unexpected[server.name] = (unexpected[server.name] ?? 0) + redirects.unexpected + mixedCreates.unexpected
        result.mixed[server.name] = { redirects, creates: mixedCreates }
      }
      rounds.push(result)
      log(
        `writes round ${round + 1}/${settings.rounds}: ` +
          servers
            .map(
              (s) =>
                `${s.name} ${result.creates[s.name]?.toFixed(0)} creates/s (${result.cpu[s.name]?.toFixed(0)} µs CPU each), bulk ${result.bulk[s.name]?.toFixed(2)} s, ` +
                `beside creates ${result.mixed[s.name]?.redirects.perSecond.toFixed(0)} redirects/s (p99 ${result.mixed[s.name]?.redirects.p99.toFixed(1)} ms)`,
            )
            .join('; '),
      )
    }
    const loadAfter = loadavg()[0] as number
    return { settings, servers: servers.map((s) => s.name), rounds, unexpected, load: [loadBefore, loadAfter] }
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

/** `links` links through sequential bulk requests of 1,000; the seconds it took. Throws if any item failed. */
async function bulkCreate(server: ServerProcess, links: number, round: number): Promise<number> {
  const started = performance.now()
  for (let from = 0; from < links; from += 1000) {
    const batch = Array.from({ length: Math.min(1000, links - from) }, (_, i) => ({
      destination: `https://shop.example/bulk/${round}/${from + i}`,
      title: `Bulk ${from + i}`,
      tags: ['bulk', `b${(from + i) % 10}`],
    }))
    const response = await fetch(`${server.url}/v1/links/bulk`, { method: 'POST', headers: AUTH, body: JSON.stringify({ links: batch }) })
    if (response.status !== 200) throw new Error(`${server.name}: bulk create answered ${response.status}: ${await response.text()}`)
    const failed = ((await response.json()) as { data: { ok: boolean }[] }).data.filter((r) => !r.ok).length
    if (failed > 0) throw new Error(`${server.name}: ${failed} items of a bulk create failed`)
  }
  return (performance.now() - started) / 1000
}

export function renderWrites(report: WritesReport): string {
  const { settings, servers, rounds, unexpected, load } = report
  return [
    '### Link writes: creates with concurrent connections, and bulk create',
    '',
    `Embedded SQLite (every write durable before its answer). Creates: \`POST /v1/links\` (random path) from ${settings.connections} connections for ` +
      `${settings.seconds} s. Bulk: ${settings.bulkLinks.toLocaleString('en')} links (title and two tags each) through sequential ` +
      `\`POST /v1/links/bulk\` requests of 1,000. ${settings.rounds} rounds, servers in rotating order; load average ` +
      `${load[0].toFixed(1)} before, ${load[1].toFixed(1)} after (load: ${settings.generator}).`,
    '',
    `| round | ${servers.map((s) => `${s}: creates/s | ${s}: CPU µs per create | ${s}: bulk s`).join(' | ')} |`,
    `|---|${servers.map(() => '---|---|---').join('|')}|`,
    ...rounds.map(
      (r, i) =>
        `| ${i + 1} | ${servers.map((s) => `${(r.creates[s] ?? NaN).toFixed(0)} | ${(r.cpu[s] ?? NaN).toFixed(0)} | ${(r.bulk[s] ?? NaN).toFixed(2)}`).join(' | ')} |`,
    ),
    `| **median** | ${servers
      .map((s) => {
        const of = (pick: (r: WritesRound) => number | undefined) => median(rounds.map((r) => pick(r) ?? NaN))
        return `**${of((r) => r.creates[s]).toFixed(0)}** | **${of((r) => r.cpu[s]).toFixed(0)}** | **${of((r) => r.bulk[s]).toFixed(2)}**`
      })
      .join(' | ')} |`,
    `| unexpected answers | ${servers.map((s) => `${unexpected[s] ?? 0} | | `).join(' | ')} |`,
    '',
    `Redirects while creates run: ${settings.mixedRedirectConnections} connections redirecting to one link beside the ${settings.connections} ` +
      `connections of creates above, for ${settings.seconds} s, after each round's bulk (medians of the rounds; latencies in ms).`,
    '',
    '| server | redirects/s | redirect p50 | redirect p99 | creates/s | create p99 |',
    '|---|---|---|---|---|---|',
    ...servers.map((s) => {
      const of = (pick: (m: { redirects: LoadResult; creates: LoadResult }) => number) => median(rounds.map((r) => (r.mixed[s] ? pick(r.mixed[s]) : NaN)))
      return `| ${s} | ${of((m) => m.redirects.perSecond).toFixed(0)} | ${of((m) => m.redirects.p50).toFixed(2)} | ${of((m) => m.redirects.p99).toFixed(2)} | ${of((m) => m.creates.perSecond).toFixed(0)} | ${of((m) => m.creates.p99).toFixed(1)} |`
    }),
    '',
  ].join('\n')
}

/** The write targets, judged on this build's medians. */
export function writesTargets(report: WritesReport): TargetRow[] {
  const { settings, rounds, unexpected } = report
  const creates = median(rounds.map((r) => r.creates['this build'] ?? NaN))
  const bulk = median(rounds.map((r) => r.bulk['this build'] ?? NaN))
  const failed = unexpected['this build'] ?? 0
  return [
    {
      target: `link creates ≥ 3,000/s durable on SQLite (${settings.connections} connections, median of the rounds)`,
      measured: `${Math.round(creates).toLocaleString('en')}/s${failed === 0 ? '' : `, **${failed} unexpected answers**`}`,
      met: creates >= 3000 && failed === 0,
    },
    {
      target: `bulk create of ${settings.bulkLinks.toLocaleString('en')} links < 2 s (median of the rounds)`,
      measured: `${bulk.toFixed(2)} s`,
      met: bulk < 2,
    },
  ]
}
