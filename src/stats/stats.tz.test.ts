import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { visit } from '../../test/factories.js'
import type { Visit } from './clicks.js'

const DAY = 86_400_000
const HOUR = 3_600_000
const MINUTE = 60_000
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const iso = (ms: number) => new Date(ms).toISOString()

/** The last Sunday of March (Europe's spring change) that is over by now. */
function springForward(now: number): number {
  for (let year = new Date(now).getUTCFullYear(); ; year--) {
    const end = Date.UTC(year, 2, 31)
    const sunday = end - new Date(end).getUTCDay() * DAY
    if (sunday + 2 * DAY < now) return sunday
  }
}

/** Paris's midnight of the UTC date that begins at `day`: Paris's offset three hours before, when no clock change is near. */
function parisMidnight(day: number): number {
  const before = day - 3 * HOUR
  const wall = Date.parse(`${new Date(before).toLocaleString('sv-SE', { timeZone: 'Europe/Paris' }).replace(' ', 'T')}Z`)
  return day - (wall - before)
}

type Series = { start: string; clicks: number }[]

for (const backend of backends) {
  describe(`statistics in time zones, and as CSV (${backend})`, () => {
    let s: TestServer
    let token: string
    const today = Math.floor(Date.now() / DAY) * DAY
    before(async () => {
      s = await startTestServer({ backend })
      // A workspace of these tests alone: its overview of every link holds their links only.
      token = await s.createToken('ws-zones')
    })
    after(() => s.close())

    const createLink = async (path: string) => {
      const r = await s.request('POST', '/v1/links', { token, json: { destination: 'https://dest.example/', path } })
      assert.equal(r.status, 201, r.text)
      return r.body.data.id as string
    }
    const write = async (visits: Visit[]) => {
      for (const v of visits) s.container.clicks.record(v)
      await s.container.clicks.flush()
    }
    const get = async (path: string) => {
      const r = await s.request('GET', path, { token })
      assert.equal(r.status, 200, r.text)
      return r.body.data
    }
    const series = async (path: string): Promise<Series> => (await get(path)).timeseries

    test('a visit at 23:30 UTC is the next day in Paris and the same day in UTC; dates as from/to are days of the zone', async () => {
      const id = await createLink('/late')
      const day = today - 3 * DAY
      await write([visit(id, day + 23 * HOUR + 30 * MINUTE)])
      for (const base of [`/v1/links/${id}/stats?`, `/v1/stats?linkId=${id}&`, '/v1/stats?']) {
        const utc = await get(`${base}from=${date(day)}&to=${date(day + DAY)}`)
        assert.equal(utc.tz, 'UTC')
        assert.deepEqual(utc.timeseries, [
          { start: iso(day), clicks: 1 },
          { start: iso(day + DAY), clicks: 0 },
        ])
        const paris = await get(`${base}from=${date(day)}&to=${date(day + DAY)}&tz=europe/paris`)
        assert.equal(paris.tz, 'Europe/Paris')
        assert.deepEqual([paris.from, paris.to], [iso(parisMidnight(day)), iso(parisMidnight(day + 2 * DAY))], 'dates are read in the zone')
        assert.deepEqual(paris.timeseries, [
          { start: iso(parisMidnight(day)), clicks: 0 },
          { start: iso(parisMidnight(day + DAY)), clicks: 1 },
        ])
        assert.equal((await get(`${base}from=${date(day)}&to=${date(day)}&tz=Europe/Paris`)).humanClicks, 0)
        assert.equal((await get(`${base}from=${date(day + DAY)}&to=${date(day + DAY)}&tz=Europe/Paris`)).humanClicks, 1)
      }
    })

    test('a day of 23 hours: the spring change in Paris', async () => {
      const id = await createLink('/spring')
      const sunday = springForward(Date.now())
      // 00:30 and 23:30 on that Sunday in Paris (CET, then CEST), and 00:30 on the Monday.
      await write([visit(id, sunday - 30 * MINUTE), visit(id, sunday + 21 * HOUR + 30 * MINUTE), visit(id, sunday + 22 * HOUR + 30 * MINUTE)])
      const zone = `tz=Europe/Paris&linkId=${id}`
      for (const base of [`/v1/links/${id}/stats?tz=Europe/Paris`, `/v1/stats?${zone}`]) {
        assert.deepEqual(await series(`${base}&from=${date(sunday)}&to=${date(sunday + DAY)}`), [
          { start: iso(sunday - HOUR), clicks: 2 },
          { start: iso(sunday + 22 * HOUR), clicks: 1 },
        ])
        const hours = await series(`${base}&from=${date(sunday)}&to=${date(sunday)}&interval=hour`)
        assert.equal(hours.length, 23)
        assert.deepEqual(
          [hours[0], hours.at(-1)],
          [
            { start: iso(sunday - HOUR), clicks: 1 },
            { start: iso(sunday + 21 * HOUR), clicks: 1 },
          ],
        )
      }
    })

    test('Asia/Kolkata (+05:30): the hour its midnight falls in is split by the raw visits for a link, counted where it begins past retention and in the overview', async () => {
      const recent = await createLink('/kolkata')
      const old = await createLink('/kolkata-old')
      // 23:40 and 00:10 in Kolkata around the midnight between two days, 18:30 UTC, of a recent day and of one past the 90 days.
      const [day, longAgo] = [today - 3 * DAY, today - 200 * DAY]
      const around = (id: string, midnight: number) => [
        visit(id, midnight + 18 * HOUR + 10 * MINUTE),
        visit(id, midnight + 18 * HOUR + 40 * MINUTE),
        visit(id, midnight + 18 * HOUR + 45 * MINUTE, { userAgent: 'curl/8.0' }),
      ]
      await write([...around(recent, day), ...around(old, longAgo)])
      const query = (at: number) => `from=${date(at)}&to=${date(at + DAY)}&tz=Asia/Kolkata`
      const link = await get(`/v1/links/${recent}/stats?${query(day)}`)
      assert.deepEqual([link.from, link.to], [iso(day - 5.5 * HOUR), iso(day + 2 * DAY - 5.5 * HOUR)])
      assert.deepEqual(link.timeseries, [
        { start: iso(day - 5.5 * HOUR), clicks: 1 },
        { start: iso(day + 18.5 * HOUR), clicks: 1 },
      ])
      assert.deepEqual([link.humanClicks, link.botClicks], [2, 1])
      // The first day alone: the bot and the second visit are past its end.
      const first = await get(`/v1/links/${recent}/stats?from=${date(day)}&to=${date(day)}&tz=Asia/Kolkata`)
      assert.deepEqual([first.humanClicks, first.botClicks, first.totalClicks], [1, 0, 1])
      // Breakdowns and uniques take the hours that begin in the range: the hour of 18:00 UTC, whole.
      assert.deepEqual([first.browsers, first.uniqueVisitors], [[{ value: 'Chrome', clicks: 2 }], 1])
      // The overview does not split hours: the hour goes to the day it begins in.
      assert.deepEqual(await series(`/v1/stats?linkId=${recent}&${query(day)}`), [
        { start: iso(day - 5.5 * HOUR), clicks: 2 },
        { start: iso(day + 18.5 * HOUR), clicks: 0 },
      ])
      // Past the retention period there are no raw visits: the hour goes where it begins.
      assert.deepEqual(await series(`/v1/links/${old}/stats?${query(longAgo)}`), [
        { start: iso(longAgo - 5.5 * HOUR), clicks: 2 },
        { start: iso(longAgo + 18.5 * HOUR), clicks: 0 },
      ])
    })

    test('tz: an IANA name, else 400; another workspace’s link is 404 first', async () => {
      const id = await createLink('/zones')
      for (const path of [`/v1/links/${id}/stats?tz=Mars/Olympus`, '/v1/stats?tz=+05:30', '/v1/stats?tz=']) {
        const r = await s.request('GET', path, { token })
        assert.equal(r.status, 400, path)
        assert.deepEqual([r.body.error.code, r.body.error.param], ['validation_error', 'tz'], path)
      }
      assert.equal((await s.request('GET', `/v1/links/${id}/stats?tz=Mars/Olympus`)).status, 404)
    })

    test('format=csv: section,value,clicks rows, then the time series; formulas neutralised; both endpoints', async () => {
      const id = await createLink('/csv')
      const day = today - 2 * DAY
      await write([
        visit(id, day + 9 * HOUR, { referer: 'https://=cmd.example/x' }),
        visit(id, day + 9 * HOUR + MINUTE, { referer: 'https://-2+3.example/', ip: '198.51.100.2', qr: true }),
        visit(id, day + 10 * HOUR, { referer: 'https://=cmd.example/', ip: '198.51.100.3', userAgent: 'curl/8.0' }),
      ])
      const r = await s.request('GET', `/v1/links/${id}/stats?from=${date(day)}&to=${date(day + DAY)}&format=csv`, { token })
      assert.equal(r.status, 200)
      assert.equal(r.headers['content-type'], 'text/csv; charset=utf-8')
      assert.equal(r.headers['content-disposition'], `attachment; filename="stats-${id}-${date(day)}.csv"`)
      assert.equal(
        r.text,
        [
          'section,value,clicks',
          'totals,totalClicks,3',
          'totals,humanClicks,2',
          'totals,botClicks,1',
          'totals,qrScans,1',
          'totals,uniqueVisitors,2',
          "referrers,'-2+3.example,1",
          "referrers,'=cmd.example,1",
          'browsers,Chrome,2',
          'os,Windows,2',
          'devices,desktop,2',
          'countries,unknown,2',
          'languages,unknown,2',
          'utmSources,none,2',
          'utmMediums,none,2',
          'utmCampaigns,none,2',
          `timeseries,${iso(day)},2`,
          `timeseries,${iso(day + DAY)},0`,
          '',
        ].join('\r\n'),
      )
      const overview = await s.request('GET', `/v1/stats?linkId=${id}&from=${date(day)}&to=${date(day)}&format=csv`, { token })
      assert.equal(overview.status, 200)
      assert.equal(overview.headers['content-disposition'], `attachment; filename="stats-overview-${date(day)}.csv"`)
      const rows = overview.text.split('\r\n')
      assert.ok(rows.includes(`topLinks,${s.host}/csv,2`), overview.text)
      assert.equal(rows.at(-2), `timeseries,${iso(day)},2`)
      // JSON stays the default, and format=json says so.
      assert.equal((await s.request('GET', `/v1/stats?linkId=${id}&format=json`, { token })).body.success, true)
    })
  })
}
