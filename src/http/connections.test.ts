import assert from 'node:assert/strict'
import { once } from 'node:events'
import { Agent, request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { pino } from 'pino'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'

/** Only ends a test that would otherwise wait for Node's 300 s default. */
const DEADLINE_MS = 60_000

/** Resolves with what the server wrote once it closed the socket; rejects after DEADLINE_MS. */
function closed(socket: Socket): Promise<string> {
  let received = ''
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server still held the socket after ${DEADLINE_MS} ms`)), DEADLINE_MS)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(received)
    })
  })
}

describe('slow clients', () => {
  let s: TestServer
  let port: number
  before(async () => {
    s = await startTestServer({ env: { LINKLINE_REQUEST_TIMEOUT_MS: '3000' } })
    port = Number(new URL(s.url).port)
  })
  after(() => s.close())

  test('a body trickling in one byte a second is cut at the request timeout with 408 in the error shape', async () => {
    const socket = connect(port, '127.0.0.1')
    await once(socket, 'connect')
    const answer = closed(socket)
    const body = `{"token":"${'x'.repeat(500)}"}`
    socket.write(`POST /v1/sessions HTTP/1.1\r\nHost: ${s.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`)
    let sent = 0
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(body[sent++] as string)
    }, 1000)
    try {
      const text = await answer
      assert.ok(sent < body.length, 'closed before the body was complete')
      assert.match(text, /^HTTP\/1\.1 408 /)
      assert.equal(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error.code, 'request_timeout')
    } finally {
      clearInterval(trickle)
      socket.destroy()
    }
  })
})

describe('a response that takes longer than the request timeout', () => {
  let s: TestServer
  before(async () => {
    s = await startTestServer({ env: { LINKLINE_REQUEST_TIMEOUT_MS: '100' } })
  })
  after(() => s.close())

  test('is still delivered: the timeouts bound what the client sends, not how long the server works', async () => {
    const id = (await s.request('POST', '/v1/links', { json: { destination: `https://slow.example/${'x'.repeat(500)}` } })).body.data.id
    // A 4096-pixel code takes far longer than 100 ms to render; a socket idle timeout hung it up.
    const started = performance.now()
    const r = await s.request('GET', `/v1/links/${id}/qr?size=4096`)
    assert.equal(r.status, 200)
    assert.equal(r.headers['content-type'], 'image/png')
    assert.ok(performance.now() - started > 100, 'the render outlasted the request timeout')
  })
})

describe('shutdown with keep-alive clients', () => {
  /** A server whose log lines are kept, to read the levels of what it logged while closing. */
  async function server() {
    const lines: { level: number; msg: string; res?: { statusCode: number }; err?: unknown }[] = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
    const s = await startTestServer({ container: { logger } })
    return { s, port: Number(new URL(s.url).port), lines }
  }
  /** Until the listener is closed: the shutdown has begun. */
  async function closingStarted(s: TestServer) {
    for (const deadline = Date.now() + DEADLINE_MS; s.app.server.listening; await sleep(10)) assert.ok(Date.now() < deadline, 'the listener never closed')
  }
  const headOf = (text: string) => text.slice(0, text.indexOf('\r\n\r\n'))

  test('under load, no keep-alive client meets a reset connection: every response once closing says Connection: close', async () => {
    const { s, lines } = await server()
    const link = (await s.request('POST', '/v1/links', { json: { destination: 'https://keep-alive.example/' } })).body.data
    const agent = new Agent({ keepAlive: true, maxSockets: 4 })
    const get = (path: string, token?: string) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const headers = { host: s.host, ...(token ? { authorization: `Bearer ${token}` } : {}) }
        const req = request(new URL(path, s.url), { agent, headers }, (res) => {
          res.resume()
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }))
        })
        req.on('error', reject)
        req.end()
      })
    let answered = 0
    let closeCalled = false
    const afterClose: { status: number; connection: string | undefined }[] = []
    const failures: string[] = []
    // Each client stops at its first failure: a refused new connection once the listener is closed.
    const client = async (path: string, token?: string) => {
      for (;;) {
        try {
          const r = await get(path, token)
          answered++
          if (closeCalled) afterClose.push(r)
        } catch (error) {
          failures.push((error as NodeJS.ErrnoException).code ?? String(error))
          return
        }
      }
    }
    const clients = [client(link.path), client(link.path), client('/v1/links', s.token), client('/v1/links', s.token)]
    for (const deadline = Date.now() + DEADLINE_MS; answered < 200; await sleep(5)) assert.ok(Date.now() < deadline, `only ${answered} answers`)
    closeCalled = true
    await s.app.close()
    await Promise.all(clients)
    agent.destroy()
    await s.close()
    assert.deepEqual(failures, ['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED'], 'a reset connection instead of a clean close')
    // The last answer each client had was its connection's last: it said so.
    assert.ok(afterClose.filter((r) => r.connection === 'close').length >= 4, JSON.stringify(afterClose))
    assert.deepEqual(
      lines.filter((l) => l.level >= 50),
      [],
    )
  })

  test('a request in flight when the shutdown begins gets Connection: close, on the API and the redirect; new requests 503 logged at info', async () => {
    const { s, port, lines } = await server()
    const link = (await s.request('POST', '/v1/links', { json: { destination: 'https://in-flight.example/', password: 'open sesame' } })).body.data
    const open = async (head: string) => {
      const socket = connect(port, '127.0.0.1')
      await once(socket, 'connect')
      const answer = closed(socket)
      socket.write(head)
      return { socket, answer }
    }
    const body = JSON.stringify({ destination: 'https://in-flight.example/2' })
    const form = 'password=open+sesame'
    // Waiting for their bodies (or the end of their head), so the server is busy with them when the shutdown starts.
    const api = await open(
      `POST /v1/links HTTP/1.1\r\nHost: ${s.host}\r\nAuthorization: Bearer ${s.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    )
    const redirect = await open(
      `POST ${link.path} HTTP/1.1\r\nHost: ${s.host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n\r\n`,
    )
    const late = await open(`GET /v1/links HTTP/1.1\r\nHost: ${s.host}\r\nAuthorization: Bearer ${s.token}\r\n`)
    await sleep(100)
    const closing = s.app.close()
    await closingStarted(s)
    api.socket.write(body)
    redirect.socket.write(form)
    late.socket.write('\r\n')
    const [created, redirected, refused] = await Promise.all([api.answer, redirect.answer, late.answer])
    await closing
    await s.close()

    assert.match(created, /^HTTP\/1\.1 201 /)
    assert.match(headOf(created), /\r\nconnection: close/i)
    assert.match(redirected, /^HTTP\/1\.1 303 /)
    assert.match(headOf(redirected), /\r\nconnection: close/i)
    assert.match(refused, /^HTTP\/1\.1 503 /)
    assert.match(headOf(refused), /\r\nconnection: close/i)
    assert.match(headOf(refused), /\r\nretry-after: 1/i)
    const json = JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))
    assert.deepEqual([json.success, json.error.code], [false, 'service_unavailable'])
    assert.deepEqual(
      lines.filter((l) => l.level >= 50),
      [],
    )
    assert.ok(lines.some((l) => l.level === 30 && l.res?.statusCode === 503))
  })
})
