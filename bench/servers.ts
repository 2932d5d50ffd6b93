import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../test/free-port.js'

export interface ServerProcess {
  readonly name: string
  readonly url: string
  readonly pid: number
  /** User + system CPU seconds the process has used so far. */
  cpuSeconds(): number
  /** The same, per kind of thread. Threads that ended are no longer counted. */
  cpuByThread(): ThreadCpu
  /** Peak resident set size (VmHWM) in bytes. */
  peakRssBytes(): number
  /** The resident set now, in bytes, by kind: anonymous (heaps, malloc), file-backed (the binary, libraries) and shared memory. */
  residentBytes(): { anon: number; file: number; shmem: number }
  /** SIGTERM, then waits for the exit (a graceful exit also writes a --cpu-prof profile). */
  stop(): Promise<void>
}

const CLOCK_TICKS_PER_SECOND = 100

/**
 * CPU time by kind of thread, as Linux names Node's threads: serving (`MainThread`), recording
 * (`WorkerThread`: worker threads, Linkline's click writer), runtime (`V8Worker`: the garbage
 * collector's and compiler's helpers), other (libuv's pool, signal and timer threads).
 */
export interface ThreadCpu {
  serving: number
  recording: number
  runtime: number
  other: number
}
const KINDS: Record<string, keyof ThreadCpu> = { MainThread: 'serving', WorkerThread: 'recording', V8Worker: 'runtime' }

/** The CPU µs per response that each kind of thread spent between two readings. */
export const microsPerResponse = (before: ThreadCpu, after: ThreadCpu, responses: number): ThreadCpu => {
  const per = (kind: keyof ThreadCpu) => ((after[kind] - before[kind]) / responses) * 1e6
  return { serving: per('serving'), recording: per('recording'), runtime: per('runtime'), other: per('other') }
}

/**
 * Starts a server under test as a child process, so that it has its own event loop (and, on two
 * cores, its own core) beside the load generator, and waits until its port accepts connections.
 */
export async function startServer(options: {
  name: string
  script: string
  args?: string[]
  nodeArgs?: string[]
  env?: Record<string, string>
}): Promise<ServerProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script, ...(options.args ?? [])], {
    env: { ...process.env, ...options.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await waitForPort(child, port, options.name)
  const pid = child.pid as number
  return {
    name: options.name,
    url: `http://127.0.0.1:${port}`,
    pid,
    cpuSeconds: () => cpuOf(`/proc/${pid}/stat`),
    cpuByThread() {
      const cpu: ThreadCpu = { serving: 0, recording: 0, runtime: 0, other: 0 }
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        try {
          cpu[KINDS[readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()] ?? 'other'] += cpuOf(`/proc/${pid}/task/${tid}/stat`)
        } catch {
          // The thread ended between the listing and the read.
        }
      }
      return cpu
    },
    peakRssBytes: () => statusBytes(pid, 'VmHWM'),
    residentBytes: () => ({ anon: statusBytes(pid, 'RssAnon'), file: statusBytes(pid, 'RssFile'), shmem: statusBytes(pid, 'RssShmem') }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

/** A size field of a process's status file (`VmHWM`, `RssAnon`…), in bytes. */
function statusBytes(pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) * 1024 : NaN
}

/** User + system CPU seconds of a process or thread: fields 14 and 15 of its stat file (utime, stime), counted after the parenthesised name. */
export function cpuOf(statFile: string): number {
  const fields = readFileSync(statFile, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND
}

async function waitForPort(child: ChildProcess, port: number, name: string): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} before listening`)
    if (await accepts(port)) return
    await sleep(50)
  }
  child.kill('SIGKILL')
  throw new Error(`${name} did not listen on port ${port} within 30 s`)
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}
