import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import autocannon from 'autocannon'

export interface LoadRequest {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string
}

export interface Load {
  url: string
  connections: number
  seconds: number
  /** Each connection (autocannon) or each thread (wrk) cycles through these in order. */
  requests: LoadRequest[]
  /** The status every response should have. */
  expect: number
}

export interface LoadResult {
  responses: number
  seconds: number
  perSecond: number
  /** Milliseconds. */
  p50: number
  p99: number
  /**
   * Responses that were not as expected, plus connection errors and timeouts. autocannon checks the
   * exact status; wrk only counts non-2xx/3xx (so each bench checks the exact answer once before).
   */
  unexpected: number
}

export type LoadGenerator = 'wrk' | 'autocannon'

const execFileAsync = promisify(execFile)

/** wrk when installed: a C load generator costs a fraction of the CPU per request that a Node one does. */
export async function detectWrk(): Promise<boolean> {
  try {
    await execFileAsync('wrk', ['--version'])
    return true
  } catch (error) {
    // wrk prints its version and exits with 1; only a missing binary fails to spawn.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT'
  }
}

export function runLoad(generator: LoadGenerator, load: Load): Promise<LoadResult> {
  return generator === 'wrk' ? runWrk(load) : runAutocannon(load)
}

/**
 * autocannon as a library (closed loop: each connection sends its next request when the previous one
 * is answered). Latencies come from its per-response event, in fractional milliseconds: its own
 * histogram keeps whole milliseconds and only 2xx, useless for a 302 answered in under a millisecond.
 */
function runAutocannon(load: Load): Promise<LoadResult> {
  const latencies: number[] = []
  let unexpectedStatus = 0
  return new Promise((resolve, reject) => {
    const tracker = autocannon({ url: load.url, connections: load.connections, duration: load.seconds, requests: load.requests }, (error, result) => {
      if (error) return reject(error)
      latencies.sort((a, b) => a - b)
      resolve({
        responses: latencies.length,
        seconds: result.duration,
        perSecond: latencies.length / result.duration,
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        unexpected: unexpectedStatus + result.errors + result.timeouts,
      })
    })
    tracker.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      latencies.push(ms)
      if (status !== load.expect) unexpectedStatus++
    })
  })
}

/** wrk on one thread, the requests pre-formatted once per thread; its done() hook prints a JSON summary. */
async function runWrk(load: Load): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-wrk-'))
  try {
    const script = join(dir, 'load.lua')
    writeFileSync(script, wrkScript(load.requests))
    const { stdout } = await execFileAsync('wrk', ['-t1', `-c${load.connections}`, `-d${load.seconds}s`, '--timeout', '10s', '-s', script, load.url])
    const line = stdout.split('\n').find((l) => l.startsWith('{"bench":'))
    if (line === undefined) throw new Error(`wrk printed no summary:\n${stdout}`)
    const summary = JSON.parse(line) as { requests: number; micros: number; errors: number; p50: number; p99: number }
    const seconds = summary.micros / 1e6
    return {
      responses: summary.requests,
      seconds,
      perSecond: summary.requests / seconds,
      p50: summary.p50 / 1000,
      p99: summary.p99 / 1000,
      unexpected: summary.errors,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function wrkScript(requests: LoadRequest[]): string {
  const lua = (value: string) => JSON.stringify(value) // a JSON string literal is a valid Lua string literal for this ASCII input
  const entries = requests.map((r) => {
    const headers = Object.entries(r.headers ?? {}).map(([name, value]) => `[${lua(name)}] = ${lua(value)}`)
    return `{ ${lua(r.method ?? 'GET')}, ${lua(r.path)}, { ${headers.join(', ')} }, ${r.body === undefined ? 'nil' : lua(r.body)} }`
  })
  // LuaJIT allows at most 65,536 constants per function: the specs come from one function per 10,000.
  const parts: string[] = []
  for (let i = 0; i < entries.length; i += 10_000) parts.push(`function() return { ${entries.slice(i, i + 10_000).join(',\n')} } end`)
  return `
local parts = { ${parts.join(',\n')} }
local formatted = {}
local next_index = 0
function init(args)
  for _, part in ipairs(parts) do
    for _, spec in ipairs(part()) do formatted[#formatted + 1] = wrk.format(spec[1], spec[2], spec[3], spec[4]) end
  end
end
function request()
  next_index = next_index % #formatted + 1
  return formatted[next_index]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"bench":1,"requests":%d,"micros":%d,"errors":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`
}

/** Nearest-rank quantile of sorted values (NaN when there are none). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number
}

export function median(values: readonly number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  )
}
