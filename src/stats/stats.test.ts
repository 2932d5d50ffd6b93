import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { pino } from 'pino'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestServer } from '../../test/build-test-app.js'
import { CLICK_BATCH_SIZE } from './click-schedule.js'
import { createManualClock } from '../shared/clock.js'
import { insertLink, recordedClicks, visit } from '../../test/factories.js'
import { openTestStorage } from '../../test/storage.js'
import { createRollup } from './click-rollup.js'
import { createStatsRepository } from './stats.repository.js'
import { encodeVisits } from './visit-batch.js'
import { createVisitWriter } from './visit-writer.js'
import type { ClickSink, Visit } from './clicks.js'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'
const BOTS = [
  'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  'Twitterbot/1.0',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'WhatsApp/2.23.20.0 A',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
]
const DAY = 86_400_000

const metric = (text: string, name: string) => Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? NaN)

for (const backend of backends) {
  describe(`statistics (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_TRUST_PROXY: 'true', LINKLINE_COUNTRY_HEADER: 'CF-IPCountry' } })
    })
    after(() => s.close())

    const createLink = async (path: string, destination = 'https://dest.example/page') => {
      const r = await s.request('POST', '/v1/links', { json: { destination, path } })
      assert.equal(r.status, 201)
      return r.body.data.id as string
    }
    const visit = async (path: string, headers: Record<string, string> = {}) => {
      const r = await s.request('GET', path, { token: null, headers })
      assert.equal(r.status, 302)
      return r
    }
    const stats = async (id: string, query = '') => {
      const r = await s.request('GET', `/v1/links/${id}/stats${query}`)
      assert.equal(r.status, 200, r.text)
      return r.body.data
    }
    /** Visits at chosen times, through the real pipeline: the click buffer, then the writer thread. */
    const write = async (visits: Visit[]) => {
      for (const v of visits) s.container.clicks.record(v)
      await s.container.clicks.flush()
    }

    test('counts equal the visits sent, exactly: humans, bots, QR scans, uniques, breakdowns', async () => {
      const id = await createLink('/counted')
      // Three visitors: (ip A, Chrome), (ip B, Chrome), (ip A, iPhone); 10 human visits in all.
      const humans: Record<string, string>[] = [
        ...Array.from({ length: 4 }, () => ({
          'x-forwarded-for': '203.0.113.1',
          'user-agent': CHROME,
          referer: 'https://news.ycombinator.com/item?id=1',
          'cf-ipcountry': 'US',
        })),
        ...Array.from({ length: 3 }, () => ({ 'x-forwarded-for': '203.0.113.2, 10.0.0.1', 'user-agent': CHROME, 'cf-ipcountry': 'de' })),
        ...Array.from({ length: 3 }, () => ({ 'x-forwarded-for': '203.0.113.1', 'user-agent': IPHONE, referer: 'https://t.co/abc' })),
      ]
      for (const [i, headers] of humans.entries()) await visit(i < 2 ? '/counted?qr=1' : '/counted', headers)
      for (const ua of BOTS) await visit('/counted', { 'user-agent': ua, 'x-forwarded-for': '198.51.100.9' })
      await visit('/counted?qr=1', { 'user-agent': BOTS[0] as string })
      // A HEAD request, even with a browser's User-Agent (link previews do that), and a request without
      // a User-Agent are bots: neither a human click, nor a visitor, nor a browser in the breakdowns.
      const head = await s.request('HEAD', '/counted', { token: null, headers: { 'x-forwarded-for': '203.0.113.9', 'user-agent': CHROME } })
      assert.equal(head.status, 302)
      await visit('/counted', { 'x-forwarded-for': '203.0.113.9' })
      await s.container.clicks.flush()

      const data = await stats(id)
      assert.equal(data.linkId, id)
      assert.equal(data.interval, 'day')
      assert.equal(data.humanClicks, 10)
      assert.equal(data.botClicks, 8)
      assert.equal(data.totalClicks, 18)
      assert.equal(data.qrScans, 2, 'a bot following the QR URL is not a scan')
      assert.equal(data.uniqueVisitors, 3)
      assert.equal(data.timeseries.length, 30)
      assert.equal(
        data.timeseries.reduce((sum: number, b: { clicks: number }) => sum + b.clicks, 0),
        10,
      )
      assert.equal(data.timeseries.at(-1).clicks, 10, 'today is the last bucket')
      assert.ok(Date.now() - Date.parse(data.lastClickedAt) < DAY)
      assert.deepEqual(data.referrers, [
        { value: 'news.ycombinator.com', clicks: 4 },
        { value: 'direct', clicks: 3 },
        { value: 't.co', clicks: 3 },
      ])
      assert.deepEqual(data.browsers, [
        { value: 'Chrome', clicks: 7 },
        { value: 'Mobile Safari', clicks: 3 },
      ])
      assert.deepEqual(data.os, [
        { value: 'Windows', clicks: 7 },
        { value: 'iOS', clicks: 3 },
      ])
      assert.deepEqual(data.devices, [
        { value: 'desktop', clicks: 7 },
        { value: 'mobile', clicks: 3 },
      ])
      assert.deepEqual(data.countries, [
        { value: 'US', clicks: 4 },
        { value: 'DE', clicks: 3 },
        { value: 'unknown', clicks: 3 },
      ])
    })

    test('no table keeps the IP; visitor keys are kept in the daily visitor sets only', async () => {
      const id = await createLink('/private')
      await visit('/private', { 'x-forwarded-for': '192.0.2.77', 'user-agent': CHROME })
      await s.container.clicks.flush()
      const db = s.container.storage.db
      const blocks = await db.selectFrom('click_blocks').selectAll().where('link_id', '=', id).execute()
      const visitors = await db.selectFrom('link_daily_visitors').selectAll().where('link_id', '=', id).execute()
      assert.equal(blocks.length, 1)
      assert.equal(visitors.length, 1)
      assert.equal((await db.selectFrom('click_journal').selectAll().execute()).length, 0, 'the flush rolled the journal up')
      assert.match(visitors[0]!.visitor_key, /^[\w-]{22}$/)
      assert.ok(!JSON.stringify([blocks, visitors]).includes('192.0.2.77'))
      assert.ok(!JSON.stringify(blocks).includes(visitors[0]!.visitor_key))
    })

    test('without trust-proxy configuration, X-Forwarded-For and the country header are ignored', async () => {
      const plain = await startTestServer({ backend })
      try {
        const r = await plain.request('POST', '/v1/links', { json: { destination: 'https://a.example', path: '/xff' } })
        for (const ip of ['203.0.113.1', '203.0.113.2']) {
          await plain.request('GET', '/xff', { token: null, headers: { 'x-forwarded-for': ip, 'user-agent': CHROME, 'cf-ipcountry': 'US' } })
        }
        await plain.container.clicks.flush()
        const data = (await plain.request('GET', `/v1/links/${r.body.data.id}/stats`)).body.data
        assert.equal(data.humanClicks, 2)
        assert.equal(data.uniqueVisitors, 1, 'both visits come from the socket address')
        assert.deepEqual(data.countries, [{ value: 'unknown', clicks: 2 }])
      } finally {
        await plain.close()
      }
    })

    test('breakdowns: top 10 by clicks, then "other" summing the rest', async () => {
      const id = await createLink('/many-referrers')
      for (let i = 0; i < 13; i++) {
        for (let n = 0; n <= i; n++) await visit('/many-referrers', { 'user-agent': CHROME, referer: `https://r${i}.example/` })
      }
      await s.container.clicks.flush()
      const data = await stats(id)
      assert.equal(data.referrers.length, 11)
      assert.deepEqual(data.referrers[0], { value: 'r12.example', clicks: 13 })
      assert.deepEqual(data.referrers[9], { value: 'r3.example', clicks: 4 })
      assert.deepEqual(data.referrers[10], { value: 'other', clicks: 1 + 2 + 3 })
      assert.equal(
        data.referrers.reduce((sum: number, r: { clicks: number }) => sum + r.clicks, 0),
        data.humanClicks,
      )
    })

    test('a whole-day range of today reads its hours (no day row while the day goes on); a day that is over reads its day row', async (t) => {
      const id = await createLink('/whole-days')
      const today = Date.now() - (Date.now() % DAY)
      const date = (ms: number) => new Date(ms).toISOString().slice(0, 10)
      // Yesterday through the pipeline at a chosen time, today over HTTP.
      await write([
        {
          linkId: id,
          at: today - DAY + 3_600_000,
          qr: false,
          head: false,
          ip: '198.51.100.7',
          userAgent: CHROME,
          referer: 'https://yesterday.example/',
          country: undefined,
        },
      ])
      await visit('/whole-days', { 'user-agent': CHROME, referer: 'https://today.example/' })
      await s.container.clicks.flush()
      if (Date.now() - (Date.now() % DAY) !== today) return t.skip('the test crossed midnight UTC')
      assert.deepEqual((await stats(id, `?from=${date(today)}&to=${date(today)}`)).referrers, [{ value: 'today.example', clicks: 1 }])
      assert.deepEqual((await stats(id, `?from=${date(today - DAY)}&to=${date(today)}`)).referrers, [
        { value: 'today.example', clicks: 1 },
        { value: 'yesterday.example', clicks: 1 },
      ])
      const days = await s.container.storage.db
        .selectFrom('link_click_facets')
        .select('period_start')
        .where('link_id', '=', id)
        .where('granularity', '=', 'day')
        .execute()
      assert.deepEqual(
        days.map((r) => Number(r.period_start)),
        [today - DAY],
      )
    })

    test('ranges: dates, date-times, intervals, zero-filled buckets; uniques are summed per UTC day', async () => {
      const id = await createLink('/history')
      const at = (iso: string) => Date.parse(iso)
      const v = (iso: string, ip: string): Visit => ({
        linkId: id,
        at: at(iso),
        qr: false,
        head: false,
        ip,
        userAgent: CHROME,
        referer: undefined,
        country: undefined,
      })
      await write([
        v('2026-01-10T08:15:00Z', '1.1.1.1'),
        v('2026-01-10T08:45:00Z', '1.1.1.1'),
        v('2026-01-10T20:00:00Z', '2.2.2.2'),
        v('2026-01-11T09:00:00Z', '1.1.1.1'),
        v('2026-03-01T00:00:00Z', '1.1.1.1'),
      ])

      const days = await stats(id, '?from=2026-01-10&to=2026-01-11')
      assert.equal(days.from, '2026-01-10T00:00:00.000Z')
      assert.equal(days.to, '2026-01-12T00:00:00.000Z', 'a date as `to` includes its whole day')
      assert.deepEqual(days.timeseries, [
        { start: '2026-01-10T00:00:00.000Z', clicks: 3 },
        { start: '2026-01-11T00:00:00.000Z', clicks: 1 },
      ])
      assert.equal(days.uniqueVisitors, 3, '2 visitors on the 10th + the same first one again on the 11th')
      assert.equal(Date.parse(days.lastClickedAt), at('2026-03-01T00:00:00Z'), 'the latest click, whatever the range')

      const hours = await stats(id, '?from=2026-01-10T08:30:00Z&to=2026-01-10T10:00:00.000%2B01:00&interval=hour')
      assert.equal(hours.from, '2026-01-10T08:00:00.000Z', 'rounded down to the hour')
      assert.equal(hours.to, '2026-01-10T09:00:00.000Z')
      assert.deepEqual(hours.timeseries, [{ start: '2026-01-10T08:00:00.000Z', clicks: 2 }])

      // Breakdowns read whole days from day rows and the ragged ends from hour rows: they add up either way.
      for (const [query, clicks] of [
        ['?from=2026-01-09T12:00:00Z&to=2026-01-11T09:30:00Z&interval=hour', 4],
        ['?from=2026-01-10T08:30:00Z&to=2026-01-11T09:30:00Z&interval=hour', 4],
        ['?from=2026-01-10T08:30:00Z&to=2026-01-10T20:00:00Z&interval=hour', 2],
        ['?from=2026-01-10T20:00:00Z&to=2026-03-01T00:00:01Z', 3],
      ] as const) {
        const ranged = await stats(id, query)
        assert.equal(ranged.humanClicks, clicks, query)
        assert.deepEqual(ranged.browsers, [{ value: 'Chrome', clicks }], query)
        assert.deepEqual(ranged.referrers, [{ value: 'direct', clicks }], query)
      }

      const months = await stats(id, '?from=2025-12-15&to=2026-03-31T12:00:00&interval=month')
      assert.deepEqual(
        months.timeseries.map((b: { clicks: number }) => b.clicks),
        [0, 4, 0, 1],
      )
      assert.equal(months.timeseries[0].start, '2025-12-01T00:00:00.000Z')
      assert.equal(months.humanClicks, 5)
      assert.equal(months.totalClicks, 5)

      const empty = await stats(id, '?from=2020-01-01&to=2020-01-02')
      assert.deepEqual(
        { ...empty, timeseries: empty.timeseries.length, lastClickedAt: undefined },
        {
          linkId: id,
          from: '2020-01-01T00:00:00.000Z',
          to: '2020-01-03T00:00:00.000Z',
          interval: 'day',
          tz: 'UTC',
          totalClicks: 0,
          humanClicks: 0,
          botClicks: 0,
          qrScans: 0,
          uniqueVisitors: 0,
          lastClickedAt: undefined,
          timeseries: 2,
          referrers: [],
          browsers: [],
          os: [],
          devices: [],
          countries: [],
          languages: [],
          utmSources: [],
          utmMediums: [],
          utmCampaigns: [],
          cities: [],
        },
      )
    })

    test('parameters are validated, with param', async () => {
      const id = await createLink('/validated')
      const cases: [string, string][] = [
        ['from=yesterday', 'from'],
        ['to=2026-13-01', 'to'],
        ['from=2026-02-30', 'from'],
        ['from=2026-01-01T25:00:00Z', 'from'],
        ['from=1969-12-31', 'from'],
        ['from=2026-02-01&to=2026-01-01', 'from'],
        ['interval=week', 'interval'],
        ['from=2026-01-01&to=2026-03-01&interval=hour', 'interval'],
        ['from=1970-01-01&to=2060-01-01&interval=month', 'from'],
        ['granularity=day', 'granularity'],
      ]
      for (const [query, param] of cases) {
        const r = await s.request('GET', `/v1/links/${id}/stats?${query}`)
        assert.equal(r.status, 400, query)
        assert.equal(r.body.error.code, 'validation_error')
        assert.equal(r.body.error.param, param, query)
      }
      assert.equal((await s.request('GET', `/v1/links/${id}/stats?from=2026-01-01&to=2026-02-10&interval=hour`)).status, 200, '984 hourly buckets')
    })

    test("another owner's link is 404 (before its parameters), and the scope is links:read", async () => {
      const id = await createLink('/owned')
      const bob = await s.createToken('bob')
      for (const path of [`/v1/links/${id}/stats`, `/v1/links/${id}/stats?interval=week`, '/v1/links/lnk_nope/stats']) {
        const r = await s.request('GET', path, { token: bob })
        assert.equal(r.status, 404, path)
        assert.equal(r.body.error.code, 'not_found')
      }
      const writer = await s.createToken('alice', ['links:write'])
      assert.equal((await s.request('GET', `/v1/links/${id}/stats`, { token: writer })).status, 403)
    })

    test('deleting a link deletes its statistics (in the background); its buffered visits do not fail the batch', async () => {
      const gone = await createLink('/gone')
      const kept = await createLink('/kept')
      await visit('/gone', { 'user-agent': CHROME })
      await s.container.clicks.flush()
      await visit('/gone', { 'user-agent': CHROME })
      await visit('/kept', { 'user-agent': CHROME })
      assert.equal((await s.request('DELETE', `/v1/links/${gone}`)).status, 200)
      await s.container.clicks.flush()
      assert.equal((await stats(kept)).humanClicks, 1)
      await s.container.purger.idle()
      const db = s.container.storage.db
      for (const table of ['click_blocks', 'link_click_rollups', 'link_click_facets', 'link_daily_visitors'] as const) {
        assert.equal((await db.selectFrom(table).select('link_id').where('link_id', '=', gone).execute()).length, 0, table)
      }
    })

    test('retention prunes raw clicks older than the configured days; rollups stay', async () => {
      const id = await createLink('/retained')
      const v = (at: number): Visit => ({ linkId: id, at, qr: false, head: false, ip: '1.1.1.1', userAgent: CHROME, referer: undefined, country: undefined })
      const now = Date.now()
      await write([v(now - 91 * DAY), v(now - 89 * DAY), v(now)])
      await s.container.stats.prune()
      assert.equal((await recordedClicks(s.container.storage.db, id)).length, 2)
      const from = new Date(now - 95 * DAY).toISOString().slice(0, 10)
      assert.equal((await stats(id, `?from=${from}`)).humanClicks, 3)
    })
  })
}

describe('click pipeline under write failures', () => {
  let s: TestServer
  let failing = true
  const logs: { msg: string }[] = []
  const sinkFailing = (sink: ClickSink): ClickSink => ({
    async write(visits) {
      if (failing) throw new Error('injected: the database is down')
      await sink.write(visits)
    },
    rollUp: (blocks) => sink.rollUp(blocks),
    upkeep: () => sink.upkeep(),
  })
  before(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as { msg: string }) })
    s = await startTestServer({ env: { LINKLINE_CLICK_BUFFER_SIZE: '100' }, container: { wrapClickSink: sinkFailing, logger } })
  })
  after(() => s.close())

  test('redirects still answer 302, visits beyond the bound are dropped and counted, the rest is written later', async () => {
    const r = await s.request('POST', '/v1/links', { json: { destination: 'https://dest.example/', path: '/down' } })
    const id = r.body.data.id
    for (let i = 0; i < 150; i++) {
      const res = await s.request('GET', '/down', { token: null, headers: { 'user-agent': CHROME } })
      assert.equal(res.status, 302)
    }
    await assert.rejects(s.container.clicks.flush(), /injected/)
    await assert.rejects(s.container.clicks.flush(), /injected/)
    const failures = logs.filter((l) => l.msg.startsWith('writing clicks failed'))
    assert.equal(failures.length, 1, 'an outage is logged once, not once per flush')
    const metrics = (await s.request('GET', '/metrics', { token: null })).text
    assert.equal(metric(metrics, 'linkline_clicks_dropped_total{reason="buffer_full"}'), 50)
    assert.equal(metric(metrics, 'linkline_click_buffer_size'), 100)

    failing = false
    await s.container.clicks.flush()
    const after = (await s.request('GET', '/metrics', { token: null })).text
    assert.equal(metric(after, 'linkline_clicks_recorded_total'), 100)
    assert.equal(metric(after, 'linkline_click_buffer_size'), 0)
    assert.equal((await s.request('GET', `/v1/links/${id}/stats`)).body.data.humanClicks, 100)
    assert.ok(logs.some((l) => l.msg === 'writing clicks works again'))
  })
})

describe('click writer thread', () => {
  /** Nice values of this process's threads (Linux: /proc/self/task/<tid>/stat, field 19). */
  const niceOf = (tid: string | number) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ')[16])
  const niceValues = () => readdirSync('/proc/self/task').map(niceOf)

  test(
    'runs at LINKLINE_CLICK_WRITER_NICE, and leaves the serving thread as it was',
    { skip: process.platform !== 'linux' && 'nice values per thread are read from Linux /proc' },
    async () => {
      const s = await startTestServer({ env: { LINKLINE_CLICK_WRITER_NICE: '7' } })
      const mainThread = niceOf(process.pid)
      try {
        const id = (await s.request('POST', '/v1/links', { json: { destination: 'https://a.example/', path: '/nice' } })).body.data.id
        assert.equal((await s.request('GET', '/nice', { token: null, headers: { 'user-agent': CHROME } })).status, 302)
        await s.container.clicks.flush()
        assert.equal(niceValues().filter((nice) => nice === 7).length, 1, 'one thread, the writer, runs at nice 7')
        assert.equal(niceOf(process.pid), mainThread, 'the serving thread keeps its nice value')
        assert.equal((await s.request('GET', `/v1/links/${id}/stats`)).body.data.humanClicks, 1)
      } finally {
        await s.close()
      }
    },
  )
})

describe('click flusher triggers', () => {
  /** The roll-ups a server has finished; the first is the start's (of what a crashed process may have left), on the first tick. */
  const rollupsOf = async (s: TestServer) =>
    metric((await s.request('GET', '/metrics', { token: null })).text, 'linkline_click_rollup_duration_seconds_count{outcome="ok"}')

  /**
   * Polls until `check` holds: the flusher runs in the background, so the test waits for its effect.
   * The deadline only ends a test that would hang; it is generous, as the writer runs at nice 19 and a
   * loaded CI machine gives it little CPU (50,000 visits took over 10 s there).
   */
  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
      if (await check()) return
      // Slow enough for the API's rate limit (the statistics are read through it).
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.fail('the flusher did not write the visits within 2 minutes')
  }

  test('a full batch is written at once, without waiting for the timer', async () => {
    // Rolled up as soon as the batch is written: the roll-up interval is short, the flush interval long.
    const s = await startTestServer({ env: { LINKLINE_CLICK_FLUSH_INTERVAL_MS: '60000', LINKLINE_CLICK_ROLLUP_INTERVAL_MS: '10' } })
    try {
      const id = (await s.request('POST', '/v1/links', { json: { destination: 'https://a.example/', path: '/batch' } })).body.data.id
      for (let i = 0; i < CLICK_BATCH_SIZE; i++) {
        s.container.clicks.record({
          linkId: id,
          at: Date.now(),
          qr: false,
          head: false,
          ip: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
          userAgent: CHROME,
          referer: undefined,
          country: undefined,
        })
      }
      await eventually(async () => (await s.request('GET', `/v1/links/${id}/stats`)).body.data.humanClicks === CLICK_BATCH_SIZE)
      const data = (await s.request('GET', `/v1/links/${id}/stats`)).body.data
      assert.equal(data.uniqueVisitors, CLICK_BATCH_SIZE)
    } finally {
      await s.close()
    }
  })

  test('written visits wait for the roll-up interval, except those of a link with a click limit, rolled up at once', async () => {
    const s = await startTestServer({ env: { LINKLINE_CLICK_FLUSH_INTERVAL_MS: '50', LINKLINE_CLICK_ROLLUP_INTERVAL_MS: '60000' } })
    try {
      const create = async (json: Record<string, unknown>) =>
        (await s.request('POST', '/v1/links', { json: { destination: 'https://a.example/', ...json } })).body.data.id
      const [plain, limited] = [await create({ path: '/plain' }), await create({ path: '/limited', maxClicks: 100 })]
      const humanClicks = async (id: string) => (await s.request('GET', `/v1/links/${id}/stats`)).body.data.humanClicks
      const metrics = async () => (await s.request('GET', '/metrics', { token: null })).text
      const rollups = () => rollupsOf(s)
      // The start's one roll-up (of what a crashed process may have left) runs on the first tick: after it, none until the interval.
      await eventually(async () => (await rollups()) >= 1)
      const started = await rollups()
      assert.equal((await s.request('GET', '/plain', { token: null, headers: { 'user-agent': CHROME } })).status, 302)
      await eventually(async () => metric(await metrics(), 'linkline_click_journal_size') === 1)
      assert.equal(await rollups(), started, 'written to the journal, not rolled up yet')
      assert.equal((await s.request('GET', '/limited', { token: null, headers: { 'user-agent': CHROME } })).status, 302)
      await eventually(async () => (await rollups()) === started + 1)
      // Nothing waits any more, so the reads roll up nothing of their own: the limited visit's roll-up counted both.
      assert.equal(await humanClicks(limited), 1)
      assert.equal(await humanClicks(plain), 1, 'rolled up with it')
      assert.equal(await rollups(), started + 1)
    } finally {
      await s.close()
    }
  })

  test('while visits keep coming, a visit is in the statistics at its roll-up and in the clicks export once its click block is written: at the block interval, or at a flush', async () => {
    const s = await startTestServer({
      // Reads roll up (without blocks) on their own; the long roll-up interval keeps a loaded machine's pause
      // between two visits from looking like the writes stopped (half an interval), which writes the blocks.
      env: { LINKLINE_CLICK_FLUSH_INTERVAL_MS: '50', LINKLINE_CLICK_ROLLUP_INTERVAL_MS: '20000', LINKLINE_CLICK_BLOCK_INTERVAL_MS: '30000' },
    })
    let visiting = true
    let sent = 0
    try {
      const id = (await s.request('POST', '/v1/links', { json: { destination: 'https://a.example/', path: '/blocks-later' } })).body.data.id
      const exported = async () => (await s.request('GET', `/v1/links/${id}/clicks?format=ndjson`)).text.split('\n').filter((l) => l !== '').length
      const humanClicks = async () => (await s.request('GET', `/v1/links/${id}/stats`)).body.data.humanClicks as number
      const metrics = async () => (await s.request('GET', '/metrics', { token: null })).text
      // The start's roll-up (on the first tick) writes blocks for whatever it finds: visits begin after it.
      await eventually(async () => (await rollupsOf(s)) >= 1)
      // A visit every 30 ms: the roll-ups never find the writes stopped.
      const visits = (async () => {
        while (visiting) {
          assert.equal((await s.request('GET', '/blocks-later', { token: null, headers: { 'user-agent': CHROME } })).status, 302)
          sent++
          await new Promise((resolve) => setTimeout(resolve, 30))
        }
      })()
      await eventually(async () => (await humanClicks()) > 0)
      assert.equal(await exported(), 0, 'counted, not in the export yet')
      assert.ok(metric(await metrics(), 'linkline_click_blocks_pending') > 0)
      visiting = false
      await visits
      await s.container.clicks.flush()
      assert.deepEqual({ exported: await exported(), counted: await humanClicks() }, { exported: sent, counted: sent })
      assert.equal(metric(await metrics(), 'linkline_click_blocks_pending'), 0)
    } finally {
      visiting = false
      await s.close()
    }
  })

  test('visits a process appended to the journal before it died are rolled up once the next one starts', async () => {
    // A writer that appended a batch and died before its roll-up, on the server's database (SQLite: one server per file).
    const t = await openTestStorage('sqlite')
    const link = await insertLink(t.storage.db)
    const crashed = createVisitWriter(createStatsRepository(t.storage.db, t.storage.adapter), createRollup(t.storage.db, t.storage.adapter), {
      shared: false,
      blockIntervalMs: 0,
      now: Date.now,
    })
    await crashed.write(encodeVisits([visit(link.id, Date.now()), visit(link.id, Date.now(), { ip: '198.51.100.9' })]))
    await t.storage.close()
    const s = await startTestServer({ database: t.database, env: { LINKLINE_CLICK_FLUSH_INTERVAL_MS: '50' } })
    try {
      await eventually(async () => (await s.request('GET', `/v1/links/${link.id}/stats`)).body.data.humanClicks === 2)
      assert.equal((await s.request('GET', `/v1/links/${link.id}/stats`)).body.data.uniqueVisitors, 2)
    } finally {
      await s.close()
      await t.database.drop()
    }
  })

  test('a roll-up that fails at shutdown loses nothing: the visits stay in the journal and the next start counts them', async () => {
    const database = await createTestDatabase('sqlite')
    const logs: { msg: string }[] = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as { msg: string }) })
    const rollUpFailing = (sink: ClickSink): ClickSink => ({
      write: (batch) => sink.write(batch),
      rollUp: async () => {
        throw new Error('injected: the roll-up fails')
      },
      upkeep: () => sink.upkeep(),
    })
    const first = await startTestServer({ database, container: { wrapClickSink: rollUpFailing, logger } })
    const id = (await first.request('POST', '/v1/links', { json: { destination: 'https://a.example/', path: '/journaled' } })).body.data.id
    assert.equal((await first.request('GET', '/journaled', { token: null, headers: { 'user-agent': CHROME } })).status, 302)
    const closing = logs.length
    await first.close()
    assert.deepEqual(
      logs
        .slice(closing)
        .filter((l) => l.msg.includes('roll up') || l.msg.includes('rolling up'))
        .map((l) => l.msg),
      ['could not roll up the written visits at shutdown; the next start rolls them up'],
      'one warning at shutdown, which says what happens next',
    )
    assert.ok(!logs.some((l) => l.msg.startsWith('could not write')), 'nothing is reported dropped')
    const second = await startTestServer({ database, env: { LINKLINE_CLICK_FLUSH_INTERVAL_MS: '50' } })
    try {
      await eventually(async () => (await second.request('GET', `/v1/links/${id}/stats`)).body.data.humanClicks === 1)
    } finally {
      await second.close()
      await database.drop()
    }
  })

  test('the timers write what is buffered and roll it up', async () => {
    const s = await startTestServer({ env: { LINKLINE_CLICK_FLUSH_INTERVAL_MS: '50', LINKLINE_CLICK_ROLLUP_INTERVAL_MS: '50' } })
    try {
      const id = (await s.request('POST', '/v1/links', { json: { destination: 'https://a.example/', path: '/timer' } })).body.data.id
      assert.equal((await s.request('GET', '/timer', { token: null, headers: { 'user-agent': CHROME } })).status, 302)
      await eventually(async () => (await s.request('GET', `/v1/links/${id}/stats`)).body.data.humanClicks === 1)
    } finally {
      await s.close()
    }
  })
})

describe('visits are stamped by the container clock', () => {
  test('a redirect at a chosen time is counted in that hour and day, with no sleep and no backdated row', async () => {
    const clock = createManualClock(Date.parse('2025-07-14T09:30:00Z'))
    const s = await startTestServer({ container: { clock } })
    try {
      const id = (await s.request('POST', '/v1/links', { json: { destination: 'https://clock.example/', path: '/clocked' } })).body.data.id
      assert.equal((await s.request('GET', '/clocked', { token: null, headers: { 'user-agent': CHROME } })).status, 302)
      clock.advance(DAY)
      assert.equal((await s.request('GET', '/clocked', { token: null, headers: { 'user-agent': CHROME } })).status, 302)
      await s.container.clicks.flush()
      const data = (await s.request('GET', `/v1/links/${id}/stats?from=2025-07-14&to=2025-07-15`)).body.data
      assert.deepEqual(data.timeseries, [
        { start: '2025-07-14T00:00:00.000Z', clicks: 1 },
        { start: '2025-07-15T00:00:00.000Z', clicks: 1 },
      ])
      assert.equal(data.lastClickedAt, '2025-07-15T09:30:00.000Z')
      // The default range ends at the clock's now, not the machine's.
      assert.equal((await s.request('GET', `/v1/links/${id}/stats`)).body.data.to, '2025-07-15T10:00:00.000Z')
    } finally {
      await s.close()
    }
  })
})
