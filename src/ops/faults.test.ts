import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, test } from 'node:test'
import { pino } from 'pino'
import { send } from '../../test/http-client.js'
import { createFaults } from './faults.js'
import { createMetrics } from './metrics.js'

const faultTotal = async (metrics: ReturnType<typeof createMetrics>, site: string) =>
  (await metrics.registry.getSingleMetric('linkline_faults_total')?.get())?.values.find((v) => v.labels.site === site)?.value

describe('fault boundary', () => {
  const metrics = createMetrics()
  const faults = createFaults({ logger: pino({ level: 'silent' }), metrics })

  test('a failed request gets the error shape on /v1 and an HTML page elsewhere, with its request id; each is counted', async () => {
    const server = createServer((req, res) => {
      res.setHeader('X-Request-Id', 'req-42')
      faults.failRequest('server', req, res, new Error('boom at /internal/path.ts'))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const api = await send(base, 'GET', '/v1/links')
      assert.equal(api.status, 500)
      assert.equal(api.headers['x-request-id'], 'req-42')
      assert.deepEqual(api.body, { success: false, error: { code: 'internal_error', message: 'an internal error occurred; it has been logged', param: null } })
      const page = await send(base, 'GET', '/some-link')
      assert.equal(page.status, 500)
      assert.match(String(page.headers['content-type']), /^text\/html/)
      assert.doesNotMatch(page.text, /boom|internal\/path/)
      assert.equal((await send(base, 'HEAD', '/some-link')).text, '')
      assert.equal(await faultTotal(metrics, 'server'), 3)
    } finally {
      server.close()
    }
  })

  test('a request that failed before it had a request id gets one (the one the client sent, when safe), and nosniff', async () => {
    const server = createServer((req, res) => faults.failRequest('redirect', req, res, new Error('early')))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const generated = await send(base, 'GET', '/some-link')
      assert.equal(generated.status, 500)
      assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/)
      assert.equal(generated.headers['x-content-type-options'], 'nosniff')
      const echoed = await send(base, 'GET', '/some-link', { headers: { 'x-request-id': 'trace-9' } })
      assert.equal(echoed.headers['x-request-id'], 'trace-9')
    } finally {
      server.close()
    }
  })

  test('a guarded callback reports its exception instead of throwing it', async () => {
    const tick = faults.guard('timer', (n: number) => {
      if (n > 1) throw new Error('tick failed')
    })
    assert.doesNotThrow(() => tick(2))
    tick(1)
    assert.equal(await faultTotal(metrics, 'timer'), 1)
    assert.equal(await faultTotal(metrics, 'redis'), 0)
  })
})
