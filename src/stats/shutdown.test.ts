import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { freePort } from '../../test/free-port.js'
import { send } from '../../test/http-client.js'
import { MAIN, tracked } from '../../test/process.js'

const TOKEN = 'shutdown-test-token-0123456789'
/** Deadlines that only end a test that would otherwise hang (a server that never listens or never exits). */
const START_DEADLINE_MS = 60_000
const EXIT_DEADLINE_MS = 60_000

/** The child's exit code, or a failure (and SIGKILL) when it has not exited within EXIT_DEADLINE_MS. */
async function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the server did not exit within ${EXIT_DEADLINE_MS} ms`))
    }, EXIT_DEADLINE_MS)
  })
  try {
    const [code] = (await Promise.race([once(child, 'exit'), timeout])) as [number | null]
    return code
  } finally {
    clearTimeout(timer)
  }
}

describe('graceful shutdown', () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-shutdown-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  /** The real server, as operators run it, in a child process. */
  async function startServer(port: number): Promise<ChildProcess> {
    const child = tracked(
      spawn(process.execPath, [MAIN], {
        env: { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'linkline.db')}`, PORT: String(port), LINKLINE_BOOTSTRAP_TOKEN: TOKEN, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    )
    for (const deadline = Date.now() + START_DEADLINE_MS; ;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`)
      if (Date.now() > deadline) {
        child.kill('SIGKILL')
        throw new Error(`the server did not answer /healthz within ${START_DEADLINE_MS} ms`)
      }
      const up = await send(`http://127.0.0.1:${port}`, 'GET', '/healthz').then(
        (r) => r.status === 200,
        () => false,
      )
      if (up) return child
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  test('no click is lost across a SIGTERM during load', async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const headers = { host: `localhost:${port}`, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' }
    let server = await startServer(port)
    const created = await send(base, 'POST', '/v1/links', { token: TOKEN, headers, json: { destination: 'https://dest.example/', path: '/load' } })
    assert.equal(created.status, 201)
    const id = created.body.data.id

    let redirected = 0
    let stopped = false
    const worker = async () => {
      while (!stopped) {
        try {
          const r = await send(base, 'GET', '/load', { headers })
          if (r.status === 302) redirected++
          else stopped = true
        } catch {
          stopped = true // the server no longer accepts connections
        }
      }
    }
    const load = Promise.all(Array.from({ length: 8 }, worker))
    // Workers stop on the first failure: then the loop ends too, and the assertions below say why.
    for (const deadline = Date.now() + START_DEADLINE_MS; redirected < 300 && !stopped;) {
      assert.ok(Date.now() < deadline, `only ${redirected} redirects within ${START_DEADLINE_MS} ms`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    assert.ok(!stopped, 'the load stopped before SIGTERM: a redirect failed')
    server.kill('SIGTERM')
    const code = await exitOf(server)
    await load
    assert.equal(code, 0)
    assert.ok(redirected >= 300)

    server = await startServer(port)
    try {
      const stats = await send(base, 'GET', `/v1/links/${id}/stats`, { token: TOKEN, headers })
      assert.equal(stats.body.data.totalClicks, redirected)
      assert.equal(stats.body.data.humanClicks, redirected)
    } finally {
      server.kill('SIGTERM')
      await exitOf(server)
    }
  })
})

describe('shutdown while the click store is locked', () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-locked-'))
  after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'linkline.db')

  /** A server that keeps its visits buffered (no timed flush) until it is told to stop; its log is kept. */
  async function startServer(port: number, shutdownTimeoutMs = 4000): Promise<{ child: ChildProcess; log: () => string }> {
    const child = tracked(
      spawn(process.execPath, [MAIN], {
        env: {
          ...process.env,
          DATABASE_URL: `sqlite:${file}`,
          PORT: String(port),
          LINKLINE_BOOTSTRAP_TOKEN: TOKEN,
          LOG_LEVEL: 'warn',
          LINKLINE_CLICK_FLUSH_INTERVAL_MS: '60000',
          LINKLINE_SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    )
    let output = ''
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    for (const deadline = Date.now() + START_DEADLINE_MS; ;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${output}`)
      if (Date.now() > deadline) {
        child.kill('SIGKILL')
        throw new Error(`the server did not answer /healthz within ${START_DEADLINE_MS} ms: ${output}`)
      }
      if (
        await send(`http://127.0.0.1:${port}`, 'GET', '/healthz').then(
          (r) => r.status === 200,
          () => false,
        )
      )
        return { child, log: () => output }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  async function visits(port: number, path: string, count: number) {
    const base = `http://127.0.0.1:${port}`
    const headers = { host: `localhost:${port}`, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' }
    const created = await send(base, 'POST', '/v1/links', { token: TOKEN, headers, json: { destination: 'https://dest.example/', path } })
    assert.equal(created.status, 201, created.text)
    for (let i = 0; i < count; i++) assert.equal((await send(base, 'GET', path, { headers })).status, 302)
    return created.body.data.id as string
  }

  const totalClicks = async (port: number, id: string) =>
    (await send(`http://127.0.0.1:${port}`, 'GET', `/v1/links/${id}/stats`, { token: TOKEN, headers: { host: `localhost:${port}` } })).body.data.totalClicks

  test('a lock released within the shutdown timeout: the visits are written and the exit is 0', async () => {
    const port = await freePort()
    // A generous timeout: the point is that a lock released in time costs nothing, on a loaded machine too.
    const { child, log } = await startServer(port, 15_000)
    const id = await visits(port, '/locked-briefly', 20)
    const { default: Database } = await import('better-sqlite3')
    const holder = new Database(file)
    holder.exec('begin immediate')
    child.kill('SIGTERM')
    setTimeout(() => holder.exec('commit'), 1500)
    const code = await exitOf(child)
    holder.close()
    assert.equal(code, 0, log())
    const again = await startServer(port)
    try {
      assert.equal(await totalClicks(port, id), 20)
    } finally {
      again.child.kill('SIGTERM')
      await exitOf(again.child)
    }
  })

  test('a lock held past the shutdown timeout: the exit is non-zero and the log says how many visits were dropped', async () => {
    const port = await freePort()
    const { child, log } = await startServer(port)
    await visits(port, '/locked-long', 15)
    const { default: Database } = await import('better-sqlite3')
    const holder = new Database(file)
    holder.exec('begin immediate')
    try {
      child.kill('SIGTERM')
      const code = await exitOf(child)
      assert.notEqual(code, 0)
      assert.match(log(), /15 buffered visits/)
      assert.doesNotMatch(log(), /shut down cleanly/)
    } finally {
      holder.exec('rollback')
      holder.close()
    }
  })
})
