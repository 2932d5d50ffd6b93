import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { restoreCell } from '../shared/csv-cell.js'
import type { Visit } from '../stats/clicks.js'
import { CLICK_COLUMNS, LINK_CSV_COLUMNS } from './porting.format.js'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'
const DAY = 86_400_000

const csv = (text: string) => parse(text, { columns: true, bom: true }) as Record<string, string>[]
const ndjson = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)

for (const backend of backends) {
  describe(`export of links and clicks (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_TRUST_PROXY: 'true', LINKLINE_COUNTRY_HEADER: 'CF-IPCountry' } })
    })
    after(() => s.close())

    const create = async (body: Record<string, unknown>, token = s.token) => {
      const r = await s.request('POST', '/v1/links', { json: body, token })
      assert.equal(r.status, 201, r.text)
      return r.body.data as Record<string, unknown>
    }

    test('exports every link in CSV and NDJSON, as the API returns them, over many keyset pages', async () => {
      const made = []
      // Quotes, commas, newlines and non-ASCII in a title must survive the round trip.
      made.push(await create({ destination: 'https://e.example/a?x=1,2', path: '/exp-quoted', title: 'He said "hi", then\nleft — ü' }))
      for (let i = 0; i < 25; i++) made.push(await create({ destination: `https://e.example/${i}`, path: `/exp-${i}`, title: i % 2 ? `odd` : null }))
      const listed = []
      for (let page = 1; ; page++) {
        const r = await s.request('GET', `/v1/links?limit=100&page=${page}`)
        listed.push(...r.body.data)
        if (!r.body.pagination.hasMore) break
      }

      const asJson = await s.request('GET', '/v1/links/export?format=ndjson')
      assert.equal(asJson.status, 200)
      assert.match(String(asJson.headers['content-type']), /^application\/x-ndjson/)
      // The list's objects, with the password hash that only the export carries (none here), without
      // createdBy: it names a token of this server, which an import elsewhere cannot keep.
      assert.deepEqual(listed[0].createdBy, s.actorOf(s.token))
      const exported = listed.map(({ createdBy: _createdBy, ...link }) => ({ ...link, passwordHash: null }))
      assert.deepEqual(ndjson(asJson.text), exported, 'the same objects, in the same order as the list')

      const asCsv = await s.request('GET', '/v1/links/export?format=csv')
      assert.equal(asCsv.status, 200)
      assert.match(String(asCsv.headers['content-type']), /^text\/csv/)
      assert.match(String(asCsv.headers['content-disposition']), /attachment; filename="links.csv"/)
      assert.equal(asCsv.text.split('\r\n')[0], LINK_CSV_COLUMNS.join(','))
      assert.ok(!LINK_CSV_COLUMNS.includes('createdBy') && LINK_CSV_COLUMNS.includes('updatedAt'), "the link object's fields but its creator")
      const rows = csv(asCsv.text)
      assert.equal(rows.length, listed.length)
      for (const [i, row] of rows.entries()) {
        const link = exported[i] as Record<string, unknown>
        for (const column of LINK_CSV_COLUMNS) {
          const value = link[column]
          // An object (health) is a JSON cell; text, numbers and booleans are themselves.
          const cell = value === null ? '' : typeof value === 'object' && !Array.isArray(value) ? JSON.stringify(value) : String(value)
          assert.equal(row[column], cell, column)
        }
      }
      assert.equal(csv((await s.request('GET', '/v1/links/export')).text).length, listed.length, 'csv by default')
      const head = await s.request('HEAD', '/v1/links/export?format=ndjson')
      assert.deepEqual([head.status, head.text, String(head.headers['content-type'])], [200, '', 'application/x-ndjson; charset=utf-8'])
      // Pages far smaller than the export, with links created within one millisecond: none lost, none twice.
      const principal = { tokenId: 't', ownerId: 'alice', scopes: new Set<string>(), role: 'owner' as const }
      const paged = []
      for await (const link of s.container.links.exportAll(principal, {}, 7)) paged.push(link)
      assert.deepEqual(paged, exported)
    })

    test("the list's filters apply; another owner's links never appear; an empty export is a header alone", async () => {
      await create({ destination: 'https://filter.example/', path: '/f-1', title: 'Filtered' })
      await create({ destination: 'https://filter.example/', path: '/f-2', title: 'Other' })
      const bob = await s.createToken('bob')
      await create({ destination: 'https://filter.example/', path: '/f-bob', title: 'Filtered' }, bob)
      const byTitle = ndjson((await s.request('GET', '/v1/links/export?format=ndjson&query[title]=Filtered')).text)
      assert.deepEqual(
        byTitle.map((l) => l.path),
        ['/f-1'],
      )
      const byDestination = ndjson(
        (await s.request('GET', `/v1/links/export?format=ndjson&query=${encodeURIComponent('{"destination":"https://FILTER.example"}')}`)).text,
      )
      assert.deepEqual(byDestination.map((l) => l.path).sort(), ['/f-1', '/f-2'])
      const none = await s.request('GET', '/v1/links/export?query[path]=/nothing')
      assert.equal(none.text, `${LINK_CSV_COLUMNS.join(',')}\r\n`)
      const bobs = ndjson((await s.request('GET', '/v1/links/export?format=ndjson', { token: bob })).text)
      assert.deepEqual(
        bobs.map((l) => l.path),
        ['/f-bob'],
      )
    })

    test('no CSV cell starts a spreadsheet formula: titles, tags and referrer hosts get a quote, read back by restoreCell', async () => {
      const typed = [
        { title: '=HYPERLINK("https://evil.example","Click")', tags: ['+cmd', '-2+3', '@SUM(A1)'] },
        { title: "'=already quoted", tags: ['\tx', "''+y"] },
        { title: '\rcarriage', tags: ['plain'] },
      ]
      const ids: string[] = []
      for (const [i, fields] of typed.entries()) ids.push((await create({ destination: 'https://f.example/', path: `/formula-${i}`, ...fields })).id as string)
      // Arbitrary text too: every cell of every row, whatever was typed.
      let n = 0
      await fc.assert(
        fc.asyncProperty(
          fc.string({ unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', "'", 'a', ',', ' '), minLength: 1, maxLength: 20 }),
          fc.uniqueArray(fc.string({ unit: fc.constantFrom('=', '+', '-', '@', "'", 'b'), minLength: 1, maxLength: 5 }), { maxLength: 3 }),
          async (title, tags) => {
            await create({ destination: 'https://f.example/', path: `/formula-any-${n++}`, title, tags })
          },
        ),
        { numRuns: 25 },
      )
      const objects = ndjson((await s.request('GET', '/v1/links/export?format=ndjson&query[destination]=https://f.example/')).text)
      const rows = csv((await s.request('GET', '/v1/links/export?format=csv&query[destination]=https://f.example/')).text)
      assert.equal(rows.length, typed.length + n)
      for (const [i, row] of rows.entries()) {
        const link = objects[i] as Record<string, unknown>
        assert.equal(restoreCell(row.title as string), link.title, 'the title reads back')
        for (const [column, cell] of Object.entries(row)) assert.doesNotMatch(cell, /^[=+\-@\t\r]/, `${column}: ${JSON.stringify(cell)}`)
      }
      assert.equal(rows.find((r) => r.path === '/formula-0')?.title, `'=HYPERLINK("https://evil.example","Click")`)
      assert.equal(rows.find((r) => r.path === '/formula-1')?.title, "''=already quoted")
      assert.equal(rows.find((r) => r.path === '/formula-0')?.tags, "'+cmd|-2+3|@SUM(A1)")

      // A visitor's Referer host is theirs to choose: the clicks CSV neutralises it too.
      for (const referer of ['http://=1+2/', 'http://-cmd/', 'http://+x/', 'https://plain.example/'])
        await s.request('GET', '/formula-2', { token: null, headers: { 'user-agent': CHROME, referer } })
      await s.container.clicks.flush()
      const clicks = csv((await s.request('GET', `/v1/links/${ids[2]}/clicks?format=csv`)).text)
      assert.deepEqual(clicks.map((c) => c.referrer).sort(), ["'+x", "'-cmd", "'=1+2", 'plain.example'])
      for (const row of clicks) for (const cell of Object.values(row)) assert.doesNotMatch(cell, /^[=+\-@\t\r]/)
    })

    test('every parameter is validated with a 400 naming it; scope and token as the list', async () => {
      for (const [query, param] of [
        ['format=xml', 'format'],
        ['bogus=1', 'bogus'],
        ['query[nope]=1', 'query[nope]'],
      ] as const) {
        const r = await s.request('GET', `/v1/links/export?${query}`)
        assert.equal(r.status, 400, query)
        assert.equal(r.body.error.param, param, query)
      }
      assert.equal((await s.request('GET', '/v1/links/export', { token: null })).status, 401)
      const readOnly = await s.createToken('alice', ['links:read'])
      assert.equal((await s.request('GET', '/v1/links/export', { token: readOnly })).status, 200)
      const noLinks = await s.createToken('alice', ['domains:read'])
      assert.equal((await s.request('GET', '/v1/links/export', { token: noLinks })).status, 403)
    })

    test("a link's visits rolled up late (after newer ones of the same hour) are still exported oldest first, across pages", async () => {
      const id = (await create({ destination: 'https://late.example/', path: '/late' })).id as string
      const hour = Math.floor((Date.now() - DAY) / 3_600_000) * 3_600_000
      const v = (at: number): Visit => ({
        linkId: id,
        at,
        qr: false,
        head: false,
        ip: '198.51.100.3',
        userAgent: CHROME,
        referer: undefined,
        country: undefined,
      })
      const rollUp = async (visits: Visit[]) => {
        for (const visit of visits) s.container.clicks.record(visit)
        await s.container.clicks.flush()
      }
      // Twenty hours of one visit each, written newest first: more click blocks than one page holds.
      for (let h = 20; h >= 1; h--) await rollUp([v(hour - h * 3_600_000)])
      await rollUp([v(hour + 10_000), v(hour + 50_000)])
      await rollUp([v(hour + 30_000)])
      const times = ndjson((await s.request('GET', `/v1/links/${id}/clicks?format=ndjson`)).text).map((c) => Date.parse(c.time as string))
      assert.equal(times.length, 23)
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
      )
    })

    test("a link's clicks: fields recorded, oldest first, never an IP; range and retention; another owner's link is 404", async () => {
      const link = await create({ destination: 'https://clicks.example/', path: '/clicked' })
      const id = link.id as string
      await s.request('GET', '/clicked?qr=1', {
        token: null,
        headers: {
          'x-forwarded-for': '203.0.113.77',
          'user-agent': CHROME,
          referer: 'https://news.ycombinator.com/item?id=1',
          'cf-ipcountry': 'DE',
          'accept-language': 'de-DE,de;q=0.9',
        },
      })
      await s.request('GET', '/clicked', { token: null, headers: { 'x-forwarded-for': '203.0.113.78', 'user-agent': 'Twitterbot/1.0' } })
      // Many visits in one millisecond and across pages, at chosen times: the keyset must lose none and repeat none.
      const now = Date.now()
      const visits: Visit[] = []
      for (let i = 0; i < 2500; i++)
        visits.push({
          linkId: id,
          at: now - DAY + Math.floor(i / 700) * 1000,
          qr: false,
          head: false,
          ip: '198.51.100.1',
          userAgent: CHROME,
          referer: undefined,
          country: undefined,
        })
      visits.push({ linkId: id, at: now - 400 * DAY, qr: false, head: false, ip: '198.51.100.2', userAgent: CHROME, referer: undefined, country: undefined })
      for (const v of visits) s.container.clicks.record(v)
      await s.container.clicks.flush()

      const r = await s.request('GET', `/v1/links/${id}/clicks?format=ndjson`)
      assert.equal(r.status, 200, r.text)
      const clicks = ndjson(r.text)
      assert.equal(clicks.length, 2502, 'every visit within the retention period (90 days), once')
      const times = clicks.map((c) => Date.parse(c.time as string))
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
        'oldest first',
      )
      const human = clicks.find((c) => c.qr === true)
      assert.deepEqual(human, {
        time: human?.time,
        referrer: 'news.ycombinator.com',
        browser: 'Chrome',
        os: 'Windows',
        device: 'desktop',
        country: 'DE',
        qr: true,
        bot: false,
        language: 'de-de',
        utmSource: null,
        utmMedium: null,
        utmCampaign: null,
        city: null,
      })
      assert.equal(clicks.filter((c) => c.bot === true).length, 1)
      assert.doesNotMatch(r.text, /203\.0\.113|198\.51\.100/, 'no IP')

      const asCsv = await s.request('GET', `/v1/links/${id}/clicks`)
      assert.match(String(asCsv.headers['content-type']), /^text\/csv/)
      assert.equal(asCsv.text.split('\r\n')[0], CLICK_COLUMNS.join(','))
      const rows = csv(asCsv.text)
      assert.equal(rows.length, 2502)
      assert.doesNotMatch(asCsv.text, /203\.0\.113|198\.51\.100/)

      const day = new Date(now - DAY).toISOString().slice(0, 10)
      const ranged = ndjson((await s.request('GET', `/v1/links/${id}/clicks?format=ndjson&from=${day}&to=${day}`)).text)
      assert.equal(ranged.length, visits.filter((v) => new Date(v.at).toISOString().slice(0, 10) === day).length)
      assert.equal(ndjson((await s.request('GET', `/v1/links/${id}/clicks?format=ndjson&to=2000-01-01`)).text).length, 0)

      for (const [query, param] of [
        ['from=yesterday', 'from'],
        ['to=2026-13-01', 'to'],
        ['from=2026-02-01&to=2026-01-01', 'from'],
        ['format=csv2', 'format'],
        ['ip=1', 'ip'],
      ] as const) {
        const bad = await s.request('GET', `/v1/links/${id}/clicks?${query}`)
        assert.equal(bad.status, 400, query)
        assert.equal(bad.body.error.param, param, query)
      }
      const bob = await s.createToken('bob')
      const other = await s.request('GET', `/v1/links/${id}/clicks`, { token: bob })
      assert.equal(other.status, 404)
      assert.equal((await s.request('GET', `/v1/links/${id}/clicks?format=bogus`, { token: bob })).status, 404, 'the resource before the parameters')
    })
  })
}
