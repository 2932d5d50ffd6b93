import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { FRESH_MS } from './clicks.js'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'

for (const backend of backends) {
  describe(`freshness of the statistics (${backend})`, () => {
    let s: TestServer
    before(async () => {
      // Neither the flush nor the roll-up would run within the test on their own: only the read's freshen can count a visit.
      s = await startTestServer({ backend, env: { LINKLINE_CLICK_FLUSH_INTERVAL_MS: '60000', LINKLINE_CLICK_ROLLUP_INTERVAL_MS: '60000' } })
    })
    after(() => s.close())

    const humanClicks = async (id: string) => {
      const r = await s.request('GET', `/v1/links/${id}/stats`)
      assert.equal(r.status, 200, r.text)
      return r.body.data.humanClicks as number
    }
    const visit = async (path: string) => assert.equal((await s.request('GET', path, { token: null, headers: { 'user-agent': CHROME } })).status, 302)

    test("a read counts this instance's buffered visits, and a later read those since", async () => {
      const r = await s.request('POST', '/v1/links', { json: { destination: 'https://dest.example/', path: '/fresh' } })
      assert.equal(r.status, 201)
      const id = r.body.data.id as string
      await visit('/fresh')
      assert.equal(await humanClicks(id), 1)
      await visit('/fresh')
      await sleep(FRESH_MS)
      assert.equal(await humanClicks(id), 2)
    })

    test('a read with nothing new waiting starts no roll-up', async () => {
      const rollups = async () => {
        const metrics = (await s.request('GET', '/metrics', { token: null })).text
        return Number(/^linkline_click_rollup_duration_seconds_count\{outcome="ok"\} (\d+)/m.exec(metrics)?.[1] ?? NaN)
      }
      const r = await s.request('POST', '/v1/links', { json: { destination: 'https://dest.example/', path: '/quiet' } })
      const id = r.body.data.id as string
      await sleep(FRESH_MS)
      const before = await rollups()
      assert.ok(Number.isFinite(before))
      await humanClicks(id)
      await sleep(FRESH_MS)
      await humanClicks(id)
      assert.equal(await rollups(), before)
    })
  })
}
