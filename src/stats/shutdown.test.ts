import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { freePort } from '../../test/build-test-app.js'
import { send } from '../../test/http-client.js'

const TOKEN = 'shutdown-test-token-0123456789'
const MAIN = join(import.meta.dirname, '..', 'main.js')

describe('graceful shutdown', () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-shutdown-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  /** The real server, as operators run it, in a child process. */
  async function startServer(port: number): Promise<ChildProcess> {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'linkline.db')}`, PORT: String(port), LINKLINE_BOOTSTRAP_TOKEN: TOKEN, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`)
      const up = await send(`http://127.0.0.1:${port}`, 'GET', '/healthz').then((r) => r.status === 200, () => false)
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
    while (redirected < 300) await new Promise((resolve) => setTimeout(resolve, 10))
    server.kill('SIGTERM')
    const [code] = await once(server, 'exit')
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
      await once(server, 'exit')
    }
  })
})
