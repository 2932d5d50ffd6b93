import { execFile } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { median } from './load.js'

const execFileAsync = promisify(execFile)

export interface RollupSettings {
  links: number
  visits: number
  rollups: number
  /** Click blocks with every this many roll-ups (and the last): 3 for the default intervals (10 s, 30 s). A build before them writes blocks every time. */
  blocksEvery: number
  /** Measurements per build, in alternating order. */
  repeats: number
  /** The dist/bench/rollup-runner.js of another build (one that has it), measured beside this one. */
  baseline: string | undefined
}

/** Per build and run: the CPU µs per visit of appends and roll-ups, averaged over the run's rounds but the first (rows created). */
export interface RollupReport {
  settings: RollupSettings
  builds: { name: string; append: number[]; rollUp: number[] }[]
}

/**
 * The click writer alone, without HTTP: a child process per measurement (rollup-runner.ts), builds in
 * alternating order. Far steadier than the redirect bench's recording column, where a round's serving
 * thread and the load generator share the two cores with the writer.
 */
export async function benchRollup(settings: RollupSettings, log: (line: string) => void): Promise<RollupReport> {
  const runners = [{ name: 'this build', script: fileURLToPath(new URL('./rollup-runner.js', import.meta.url)) }]
  if (settings.baseline !== undefined) runners.push({ name: `baseline ${dirname(dirname(dirname(settings.baseline)))}`, script: settings.baseline })
  const builds = runners.map((r) => ({ name: r.name, append: [] as number[], rollUp: [] as number[] }))
  for (let repeat = 0; repeat < settings.repeats; repeat++) {
    const order = repeat % 2 === 0 ? runners.keys() : [...runners.keys()].reverse()
    for (const b of order) {
      const runner = runners[b] as (typeof runners)[number]
      const args = [runner.script, ...[settings.links, settings.visits, settings.rollups, settings.blocksEvery].map(String)]
      const { stdout } = await execFileAsync(process.execPath, args, { cwd: join(dirname(runner.script), '..', '..'), maxBuffer: 1 << 20 })
      const rounds = (JSON.parse(stdout.trim().split('\n').at(-1) as string) as { append: number; rollUp: number }[]).slice(1)
      const build = builds[b] as (typeof builds)[number]
      // The mean, not a median of rounds: with blocks every few roll-ups, rounds cost unlike amounts by design.
      const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length
      build.append.push(mean(rounds.map((r) => r.append)))
      build.rollUp.push(mean(rounds.map((r) => r.rollUp)))
      log(`rollup ${repeat + 1}/${settings.repeats}, ${runner.name}: roll-up ${rounds.map((r) => r.rollUp.toFixed(2)).join(', ')} µs per visit`)
    }
  }
  return { settings, builds }
}

export function renderRollup(report: RollupReport): string {
  const { links, visits, rollups, blocksEvery, repeats } = report.settings
  const rows = report.builds.map(
    (b) =>
      `| ${b.name} | ${median(b.append).toFixed(2)} | ${median(b.rollUp).toFixed(2)} (${Math.min(...b.rollUp).toFixed(2)}–${Math.max(...b.rollUp).toFixed(2)}) |`,
  )
  return [
    `### The click writer alone: ${links.toLocaleString('en')} links, ${rollups} roll-ups of ${visits.toLocaleString('en')} visits (click blocks every ${blocksEvery}), ${repeats} runs per build`,
    '',
    'CPU µs per visit (process CPU time: garbage collection included): per run, the mean over its roll-ups but the first (rows created, not updated); medians and ranges over the runs.',
    '',
    '| build | append (classify + journal) | roll-up (median, range) |',
    '|---|---|---|',
    ...rows,
  ].join('\n')
}
