import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { visit } from '../../test/factories.js'
import type { Visit } from './clicks.js'

const DAY = 86_400_000
const HOUR = 3_600_000
const SAFARI = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15'
const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10)

type Stats = Record<string, unknown> & {
  humanClicks: number
  totalClicks: number
  botClicks: number
  qrScans: number
  uniqueVisitors: number
  timeseries: { start: string; clicks: number }[]
  topLinks: { linkId: string; domain: string; path: string; title: string | null; clicks: number }[]
}

for (const backend of backends) {
  describe(`overview statistics (${backend})`, () => {
    let s: TestServer
    // Three days ago at 10:00 UTC: a whole UTC day, well inside the retention period.
    const day = Math.floor(Date.now() / DAY) * DAY - 3 * DAY
    const range = `from=${date(day)}&to=${date(day)}`
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_DOMAINS: 'sho.rt,go.example' } })
    })
    after(() => s.close())

    const createLink = async (token: string, body: Record<string, unknown>) => {
      const r = await s.request('POST', '/v1/links', { token, json: { destination: 'https://dest.example/', ...body } })
      assert.equal(r.status, 201, r.text)
      return r.body.data.id as string
    }
    /** Visits at chosen times, through the real pipeline: the click buffer, then the writer thread. */
    const write = async (visits: Visit[]) => {
      for (const v of visits) s.container.clicks.record(v)
      await s.container.clicks.flush()
    }
    const humans = (linkId: string, n: number, at: number, overrides: Partial<Visit> = {}) =>
      Array.from({ length: n }, (_, i) => visit(linkId, at + i * 1000, { ip: `198.51.100.${i + 1}`, ...overrides }))
    const overview = async (query: string, token = s.token): Promise<Stats> => {
      const r = await s.request('GET', `/v1/stats?${query}`, { token })
      assert.equal(r.status, 200, r.text)
      return r.body.data
    }

    test('totals, breakdowns and top links of every link together; domain, tag and linkId filters; others’ links never match', async () => {
      const alice = await s.createToken('ws-alice')
      const bob = await s.createToken('ws-bob')
      const a = await createLink(alice, { domain: 'sho.rt', path: '/a', title: 'Alpha', tags: ['promo', 'summer'] })
      const b = await createLink(alice, { domain: 'sho.rt', path: '/b', tags: ['promo'] })
      const c = await createLink(alice, { domain: 'go.example', path: '/c', title: 'Gamma' })
      const d = await createLink(bob, { domain: 'go.example', path: '/d', tags: ['promo'] })
      const at = day + 10 * HOUR
      await write([
        ...humans(a, 3, at, { referer: 'https://news.example/' }),
        ...humans(a, 2, at + 60_000, { qr: true, userAgent: SAFARI }),
        visit(a, at + 120_000, { userAgent: BOT }),
        ...humans(b, 3, at + 2 * HOUR),
        ...humans(c, 7, at + 5 * HOUR, { country: 'DE' }),
        ...humans(d, 4, at),
      ])

      const all = await overview(range, alice)
      assert.equal('linkId' in all, false)
      assert.deepEqual([all.humanClicks, all.botClicks, all.totalClicks, all.qrScans], [15, 1, 16, 2])
      // Per link and day: A's visitors are .1-.3 (the QR scans, from .1-.2 with another browser, are others), B's .1-.3, C's .1-.7.
      assert.equal(all.uniqueVisitors, 5 + 3 + 7, 'the sum over the links: a visitor of two links counts twice')
      assert.deepEqual(all.timeseries, [{ start: `${date(day)}T00:00:00.000Z`, clicks: 15 }])
      assert.deepEqual(all.referrers, [
        { value: 'direct', clicks: 12 },
        { value: 'news.example', clicks: 3 },
      ])
      assert.deepEqual(all.topLinks, [
        { linkId: c, domain: 'go.example', path: '/c', title: 'Gamma', clicks: 7 },
        { linkId: a, domain: 'sho.rt', path: '/a', title: 'Alpha', clicks: 5 },
        { linkId: b, domain: 'sho.rt', path: '/b', title: null, clicks: 3 },
      ])
      assert.deepEqual(all.filters, { domain: null, tag: [], linkId: [] })
      assert.ok(Date.parse(all.lastClickedAt as string) >= at + 5 * HOUR)
      // The same links named one by one are read from their own rows: the same answer.
      const named = await overview(`${range}&linkId=${a}&linkId=${b}&linkId=${c}`, alice)
      for (const field of ['humanClicks', 'totalClicks', 'uniqueVisitors', 'timeseries', 'referrers', 'browsers', 'countries', 'topLinks', 'lastClickedAt']) {
        assert.deepEqual(named[field], all[field], field)
      }
      assert.deepEqual(named.filters, { domain: null, tag: [], linkId: [a, b, c] })

      const clicks = async (query: string) => (await overview(`${range}&${query}`, alice)).humanClicks
      assert.equal(await clicks('domain=go.example'), 7)
      assert.equal(await clicks('domain=GO.example'), 7, 'a domain matches in any case')
      assert.equal(await clicks('domain=nowhere.example'), 0, 'a domain without links of yours matches nothing')
      assert.equal(await clicks('tag=promo'), 8)
      assert.equal(await clicks('tag=promo&tag=summer'), 5, 'links carrying every tag given')
      assert.equal(await clicks('tag=nope'), 0)
      assert.equal(await clicks(`linkId=${d}`), 0, "another workspace's link is simply not matched")
      assert.equal(await clicks(`linkId=${a}&linkId=${d}`), 5)
      assert.equal(await clicks(`linkId=lnk_unknown`), 0)
      assert.equal(await clicks('domain=sho.rt&tag=promo'), 8)
      assert.equal(await clicks(`domain=go.example&linkId=${a}`), 0, 'filters combine')
      const promo = await overview(`${range}&tag=promo`, alice)
      assert.deepEqual(
        promo.topLinks.map((l) => [l.linkId, l.clicks]),
        [
          [a, 5],
          [b, 3],
        ],
      )
      assert.deepEqual(promo.filters, { domain: null, tag: ['promo'], linkId: [] })
      assert.deepEqual((await overview(`${range}&domain=GO.example&tag=x&tag=x`, alice)).filters, { domain: 'go.example', tag: ['x'], linkId: [] })
      const empty = await overview(`${range}&domain=nowhere.example`, alice)
      assert.deepEqual([empty.totalClicks, empty.uniqueVisitors, empty.topLinks, empty.lastClickedAt, empty.referrers], [0, 0, [], null, []])
      assert.equal((await overview(range, bob)).humanClicks, 4, "bob's overview holds his links alone")

      // A deleted link leaves a narrower overview at once, and the overview of every link once purged.
      assert.equal((await s.request('DELETE', `/v1/links/${c}`, { token: alice })).status, 200)
      assert.equal(await clicks('domain=go.example'), 0)
      await s.container.purger.idle()
      const left = await overview(range, alice)
      assert.deepEqual([left.humanClicks, left.uniqueVisitors, left.countries], [8, 8, [{ value: 'unknown', clicks: 8 }]])
      assert.deepEqual(
        left.topLinks.map((l) => l.linkId),
        [a, b],
      )
    })

    test('top links: the ten with the most human clicks, most first, ties by id, whether the kept links decide or every link is counted', async () => {
      const token = await s.createToken('ws-many')
      const ids: string[] = []
      for (let i = 0; i < 40; i++) ids.push(await createLink(token, { path: `/many-${i}` }))
      // Link i: i + 1 visits in one hour; 40 links, more than an hour keeps (32): the others' bound is 8.
      const at = day + 12 * HOUR
      await write(ids.flatMap((id, i) => humans(id, i + 1, at)))
      const busiest = await overview(range, token)
      assert.deepEqual(
        busiest.topLinks.map((l) => [l.linkId, l.clicks]),
        ids
          .map((id, i) => [id, i + 1])
          .slice(-10)
          .reverse(),
      )
      // One visit each the next day: a tie of 40 at the bound, which no kept count rises above: every link is counted.
      await write(ids.map((id) => visit(id, at + DAY)))
      const next = `from=${date(day + DAY)}&to=${date(day + DAY)}`
      const tied = await overview(next, token)
      assert.deepEqual(
        tied.topLinks.map((l) => [l.linkId, l.clicks]),
        [...ids]
          .sort()
          .slice(0, 10)
          .map((id) => [id, 1]),
      )
      const both = await overview(`from=${date(day)}&to=${date(day + DAY)}`, token)
      assert.deepEqual(
        both.topLinks.map((l) => l.clicks),
        [41, 40, 39, 38, 37, 36, 35, 34, 33, 32],
      )
      assert.equal(both.humanClicks, (40 * 41) / 2 + 40)
    })

    test('parameters: linkId up to 100, tags up to 20, unknown ones, and the scope', async () => {
      const bad = async (query: string, param: string) => {
        const r = await s.request('GET', `/v1/stats?${query}`)
        assert.equal(r.status, 400, query)
        assert.deepEqual([r.body.error.code, r.body.error.param], ['validation_error', param], query)
      }
      await bad(Array.from({ length: 101 }, (_, i) => `linkId=lnk_${i}`).join('&'), 'linkId')
      await bad(Array.from({ length: 21 }, (_, i) => `tag=t${i}`).join('&'), 'tag')
      await bad('interval=week', 'interval')
      await bad('tz=Mars/Olympus', 'tz')
      await bad('from=2026-02-30', 'from')
      await bad('format=xml', 'format')
      await bad('link=lnk_1', 'link')
      assert.equal((await s.request('GET', `/v1/stats?${Array.from({ length: 100 }, (_, i) => `linkId=lnk_${i}`).join('&')}`)).status, 200)
      const writer = await s.createToken('alice', ['links:write'])
      const forbidden = await s.request('GET', '/v1/stats', { token: writer })
      assert.equal(forbidden.status, 403)
      assert.equal(forbidden.body.error.code, 'forbidden')
      assert.equal((await s.request('GET', '/v1/stats', { token: null })).status, 401)
    })
  })
}
