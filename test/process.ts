import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { after } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Env } from '../src/config.js'
import { send } from './http-client.js'

export const ROOT = new URL('../../', import.meta.url).pathname
export const MAIN = `${ROOT}dist/src/main.js`
export const CLI = `${ROOT}dist/src/cli/main.js`

// No page titles: a spawned server resolves names through the system's DNS, and tests send no traffic beyond loopback.
const baseEnv = (env: Env): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  // scripts/run-tests.mjs sets it: the processes a test starts load modules compiled once.
  ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
  LOG_LEVEL: 'warn',
  LINKLINE_PAGE_TITLES: 'off',
  LINKLINE_HEALTH_INTERVAL_HOURS: '0',
  ...env,
})

/** The processes this test file started that have not exited yet. */
const running = new Set<ChildProcess>()

/**
 * Wraps `spawn` for a process that a test stops itself (a server, mostly). Whatever a failed test left
 * running is killed, with its own children, once the file's tests are over: a live child holds the
 * file's process open, and the whole test run waited on it until CI's time ran out.
 */
export function tracked<C extends ChildProcess>(child: C): C {
  // A process that could not be spawned has no pid and never emits 'exit': there is nothing to kill.
  if (child.pid === undefined) return child
  running.add(child)
  child.once('exit', () => running.delete(child))
  return child
}

after(async () => {
  const left = [...running]
  for (const child of left) {
    const pid = child.pid as number
    for (const each of [...descendants(pid), pid]) {
      try {
        process.kill(each, 'SIGKILL')
      } catch {
        // gone meanwhile
      }
    }
  }
  await Promise.all(left.map((child) => once(child, 'exit')))
})

/**
 * Runs the `linkline` CLI to completion. Asynchronously: a test's server runs in the test's own
 * process, and a blocking spawn would freeze it, with SQLite's write lock held by a group waiting for
 * the next turn of the event loop, while the CLI waits for that lock and gives up.
 */
export async function cli(args: string[], env: Env) {
  const child = tracked(spawn(process.execPath, [CLI, ...args], { env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }))
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (stdout += c))
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c))
  const [status, signal, error] = await new Promise<[number | null, NodeJS.Signals | null, Error?]>((resolve) => {
    child.once('error', (e) => resolve([null, null, e]))
    child.once('close', (code, sig) => resolve([code, sig]))
  })
  return { status, signal, error, stdout, stderr }
}

/** What went wrong with a CLI run, for an assertion's message. */
export const cliFailure = (r: Awaited<ReturnType<typeof cli>>) => `status ${r.status}, signal ${r.signal}, ${r.error ?? 'spawned'}; stderr: ${r.stderr}`

/** Runs the `linkline` CLI, which must succeed, and parses what it printed as JSON. */
export async function cliJson<T>(args: string[], env: Env): Promise<T> {
  const r = await cli(args, env)
  assert.equal(r.status, 0, `linkline ${args.join(' ')}: ${cliFailure(r)}`)
  return JSON.parse(r.stdout) as T
}

export interface ServerProcess {
  readonly child: ChildProcess
  readonly url: string
  /** Both streams, interleaved as they came. */
  output(): string
  stdout(): string
  stderr(): string
  /** Resolves with the exit code, or with the signal's name when one killed the process (so that a failed assertion says which). */
  exited: Promise<number | NodeJS.Signals>
}

/**
 * Starts `node dist/src/main.js` (what `npm start` runs), or `npm start` itself with `via: 'npm'`
 * (with this test's node first on PATH, as an operator's would be), and waits until /healthz answers.
 */
export async function startServerProcess(
  env: Env & { PORT: string },
  options: { via?: 'node' | 'npm' | 'cli'; args?: string[]; url?: string } = {},
): Promise<ServerProcess> {
  const child = tracked(
    options.via === 'npm'
      ? spawn('npm', ['start'], {
          cwd: ROOT,
          env: { ...baseEnv(env), PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawn(process.execPath, options.via === 'cli' ? [CLI, 'serve', ...(options.args ?? [])] : [MAIN], {
          env: baseEnv(env),
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
  )
  let out = ''
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (c: Buffer) => ((out += c.toString()), (stdout += c.toString())))
  child.stderr?.on('data', (c: Buffer) => ((out += c.toString()), (stderr += c.toString())))
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal as NodeJS.Signals))))
  const url = options.url ?? `http://127.0.0.1:${env.PORT}`
  // A deadline that only ends a start that hangs: generous, as a loaded machine (and coverage, which
  // slows every process down) took over 10 s to start a server through npm.
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${out}`)
    try {
      if ((await send(url, 'GET', '/healthz')).status === 200) return { child, url, output: () => out, stdout: () => stdout, stderr: () => stderr, exited }
    } catch {
      // not listening yet
    }
    await sleep(50)
  }
  child.kill('SIGKILL')
  throw new Error(`server did not start: ${out}`)
}

/** Every process below `pid` (Linux: read from /proc), to check that none outlives its parent. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // gone meanwhile
    }
    // The command name, in parentheses, may hold spaces: the parent pid is the second field after it.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)])
  }
  const found: number[] = []
  const visit = (p: number) => {
    for (const child of parents.get(p) ?? []) {
      found.push(child)
      visit(child)
    }
  }
  visit(pid)
  return found
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
