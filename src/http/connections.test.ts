import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { after, before, describe, test } from 'node:test'
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
