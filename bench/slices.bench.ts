import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runLoad, median, type LoadGenerator } from './load.js'
import { drainClicks, rotationRequests, WARMUPS_MIN } from './redirect.bench.js'
import { insertLinks, linklineEnv, prepareDatabase, redirectLinkRow, redirectLinks } from './seed.js'
import { microsPerResponse, startServer, type ServerProcess, type ThreadCpu } from './servers.js'

export interface SlicesSettings {
  generator: LoadGenerator
  links: number
  connections: number
  /** Slices per server, alternating between the two (B L, L B, …). */
  slices: number
  warmupSeconds: number
}

export interface SlicesReport {
  settings: SlicesSettings
  /** CPU µs per response over all of a server's slices, by kind of thread; Linkline's recording counts its writer thread from the first slice to the end of the last roll-up. */
  bare: ThreadCpu
  linkline: ThreadCpu
  /** The bare server's CPU per response over Linkline's, every thread counted. */
  efficiency: number
  /** Median over the slice pairs of Linkline's serving thread over the bare server's, each pair a second apart. */
  servingRatio: number
}

/**
 * The redirect's CPU per response, bare server against Linkline, both running all along and loaded in
 * turn for one second each: the machine's speed here changes from one second to the next (by up to
 * 30 %, docs/performance.md, "Reading the figures"), faster than runs of 5 s in turn can cancel out. Linkline's
 * writer thread is counted as a whole, from the first slice to the roll-up of the last one's visits.
 */
export async function benchSlices(settings: SlicesSettings, workDir: string, log: (line: string) => void): Promise<SlicesReport> {
  const links = redirectLinks(settings.links)
  const database = join(workDir, `slices-${settings.links}.db`)
  await prepareDatabase(database, (db) => insertLinks(db, links.length, (i) => redirectLinkRow(links, i)))
  const bare = await startServer({ name: 'bare server', script: fileURLToPath(new URL('./bare-server.js', import.meta.url)), args: [String(settings.links)] })
  const linkline = await startServer({ name: 'Linkline', script: fileURLToPath(new URL('../src/main.js', import.meta.url)), env: linklineEnv(database) })
  const requests = rotationRequests(links)
  const load = (server: ServerProcess, seconds: number) =>
    runLoad(settings.generator, { url: server.url, connections: settings.connections, seconds, requests, expect: 302 })
  try {
    log(`slices: warm-ups of ${settings.warmupSeconds} s`)
    for (let warmups = 0; warmups < WARMUPS_MIN; warmups++) {
      await load(bare, settings.warmupSeconds)
      await load(linkline, settings.warmupSeconds)
      await drainClicks(linkline)
    }
    // CPU seconds by kind of thread over each server's slices, and its responses.
    const none: ThreadCpu = { serving: 0, recording: 0, runtime: 0, other: 0 }
    const totals = new Map([bare, linkline].map((server) => [server, { responses: 0, cpu: { ...none } }]))
    const servingRatios: number[] = []
    const linklineStart = linkline.cpuByThread()
    for (let slice = 0; slice < settings.slices; slice++) {
      const servingMicros = new Map<ServerProcess, number>()
      for (const server of slice % 2 === 0 ? [bare, linkline] : [linkline, bare]) {
        const before = server.cpuByThread()
        const result = await load(server, 1)
        if (result.unexpected > 0) throw new Error(`${server.name}: ${result.unexpected} unexpected answers`)
        const after = server.cpuByThread()
        const total = totals.get(server) as { responses: number; cpu: ThreadCpu }
        for (const kind of Object.keys(total.cpu) as (keyof ThreadCpu)[]) total.cpu[kind] += after[kind] - before[kind]
        total.responses += result.responses
        servingMicros.set(server, microsPerResponse(before, after, result.responses).serving)
      }
      servingRatios.push((servingMicros.get(linkline) as number) / (servingMicros.get(bare) as number))
    }
    await drainClicks(linkline)
    const perResponse = (server: ServerProcess) => {
      const { responses, cpu } = totals.get(server) as { responses: number; cpu: ThreadCpu }
      return microsPerResponse(none, cpu, responses)
    }
    const b = perResponse(bare)
    const l = perResponse(linkline)
    // The writer thread works between slices too (its roll-ups): all of its time since the first slice.
    l.recording = microsPerResponse(linklineStart, linkline.cpuByThread(), (totals.get(linkline) as { responses: number }).responses).recording
    const sum = (cpu: ThreadCpu) => cpu.serving + cpu.recording + cpu.runtime + cpu.other
    return { settings, bare: b, linkline: l, efficiency: sum(b) / sum(l), servingRatio: median(servingRatios) }
  } finally {
    await Promise.all([bare.stop(), linkline.stop()])
  }
}

export function renderSlices(r: SlicesReport): string {
  const row = (name: string, cpu: ThreadCpu) =>
    `| ${name} | ${cpu.serving.toFixed(2)} | ${cpu.recording.toFixed(2)} | ${(cpu.runtime + cpu.other).toFixed(2)} | ${(cpu.serving + cpu.recording + cpu.runtime + cpu.other).toFixed(2)} |`
  return [
    `### Redirect in 1 s slices: ${r.settings.links.toLocaleString('en-US')} links, ${r.settings.slices} slices per server`,
    '',
    '| server | serving | recording | runtime | CPU µs per response |',
    '|---|---|---|---|---|',
    row('bare server', r.bare),
    row('Linkline', r.linkline),
    '',
    `Efficiency (the bare server's CPU per response over Linkline's): **${r.efficiency.toFixed(2)}**. ` +
      `Serving thread, Linkline over the bare server, median of the slice pairs: ${r.servingRatio.toFixed(3)}.`,
  ].join('\n')
}
