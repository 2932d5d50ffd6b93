import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, runLoad, type LoadGenerator } from './load.js'
import { rotationRequests } from './redirect.bench.js'
import { BENCH_DOMAIN, insertLinks, linklineEnv, prepareDatabase, redirectLinkRow, redirectLinks } from './seed.js'
import { startServer, type ServerProcess } from './servers.js'

export interface SignInSettings {
  generator: LoadGenerator
  links: number
  connections: number
  seconds: number
  rounds: number
  /** Wrong sign-ins per second during the flood, each from another address and for another email. */
  signInsPerSecond: number
}

export interface SignInReport {
  settings: SignInSettings
  /** Redirect p99 in ms, per round: idle, then under the flood. */
  rounds: { idle: number; flood: number }[]
  /** How the flood's sign-ins were answered, by status. */
  answers: Record<string, number>
}

/**
 * What a flood of wrong password sign-ins does to the redirect: its p99 alone, then while
 * `signInsPerSecond` wrong sign-ins arrive, each from its own address (so no per-address limit
 * stops them) for an email of its own (so none per email does): only the bounded hashing queue of
 * accounts stands between them and the redirect's core.
 */
export async function benchSignIn(settings: SignInSettings, workDir: string, log: (line: string) => void): Promise<SignInReport> {
  const links = redirectLinks(settings.links)
  const file = join(workDir, 'sign-in.db')
  await prepareDatabase(file, (db) => insertLinks(db, links.length, (i) => redirectLinkRow(links, i)))
  const server: ServerProcess = await startServer({
    name: 'Linkline',
    script: fileURLToPath(new URL('../src/main.js', import.meta.url)),
    env: { ...linklineEnv(file), LINKLINE_TRUST_PROXY: 'true' },
  })
  const answers: Record<string, number> = {}
  const load = () =>
    runLoad(settings.generator, {
      url: server.url,
      connections: settings.connections,
      seconds: settings.seconds,
      requests: rotationRequests(links).map((r) => ({ ...r, headers: { ...r.headers, host: BENCH_DOMAIN } })),
      expect: 302,
    })
  let sent = 0
  const flood = () => {
    const n = sent++
    fetch(`${server.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.18.${(n >> 8) & 255}.${n & 255}` },
      body: JSON.stringify({ email: `nobody-${n}@example.com`, password: 'wrong password, every time' }),
    }).then(
      (res) => void res.arrayBuffer().then(() => (answers[res.status] = (answers[res.status] ?? 0) + 1)),
      () => (answers.error = (answers.error ?? 0) + 1),
    )
  }
  const rounds: SignInReport['rounds'] = []
  try {
    await load() // warm-up
    for (let round = 0; round < settings.rounds; round++) {
      const idle = (await load()).p99
      const timer = setInterval(flood, 1000 / settings.signInsPerSecond)
      // The queue fills within a second; measure its steady state.
      await new Promise((resolve) => setTimeout(resolve, 1000))
      const flooded = (await load()).p99
      clearInterval(timer)
      await new Promise((resolve) => setTimeout(resolve, 3000))
      rounds.push({ idle, flood: flooded })
      log(`sign-in flood round ${round + 1}: redirect p99 ${idle.toFixed(2)} ms idle, ${flooded.toFixed(2)} ms under the flood`)
    }
  } finally {
    await server.stop()
  }
  return { settings, rounds, answers }
}

export function renderSignIn(report: SignInReport): string {
  const ratios = report.rounds.map((r) => r.flood / r.idle)
  const { settings } = report
  return [
    `## Redirect under a flood of wrong sign-ins (${settings.signInsPerSecond}/s, each from its own address)`,
    '',
    `${settings.links} links, ${settings.connections} connections, ${settings.seconds} s per measurement, ${settings.rounds} rounds (${settings.generator}).`,
    '',
    '| round | p99 idle (ms) | p99 under the flood (ms) | ratio |',
    '|---|---|---|---|',
    ...report.rounds.map((r, i) => `| ${i + 1} | ${r.idle.toFixed(2)} | ${r.flood.toFixed(2)} | ${(r.flood / r.idle).toFixed(2)} |`),
    '',
    `Median ratio: **${median(ratios).toFixed(2)}** (target ≤ 2). Sign-ins answered: ${Object.entries(report.answers)
      .map(([status, n]) => `${n} × ${status}`)
      .join(', ')}.`,
  ].join('\n')
}
