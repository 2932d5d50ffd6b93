import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { CHROME } from '../../test/factories.js'
import { cityDatabase } from '../../test/mmdb.js'
import { hourOf } from './classify.js'

/*
 * The breakdowns the redirect's request and the final destination feed besides the User-Agent and the
 * Referer: country (trusted header, else the IP database), language, UTM parameters and city, over
 * HTTP, from the redirect to the statistics and the clicks export.
 */

type Row = { value: string; clicks: number }

const dir = mkdtempSync(join(tmpdir(), 'linkline-breakdowns-'))
const CITY_DB = join(dir, 'city.mmdb')
writeFileSync(CITY_DB, cityDatabase())
after(() => rmSync(dir, { recursive: true, force: true }))

function helpers(server: () => TestServer) {
  return {
    async link(path: string, destination = 'https://dest.example/page'): Promise<string> {
      const r = await server().request('POST', '/v1/links', { json: { destination, path } })
      assert.equal(r.status, 201, r.text)
      return r.body.data.id as string
    },
    async visit(path: string, headers: Record<string, string> = {}) {
      const r = await server().request('GET', path, { token: null, headers: { 'user-agent': CHROME, ...headers } })
      assert.equal(r.status, 302, r.text)
      return r
    },
    async stats(id: string) {
      await server().container.clicks.flush()
      const r = await server().request('GET', `/v1/links/${id}/stats`)
      assert.equal(r.status, 200, r.text)
      return r.body.data as Record<string, Row[]> & { humanClicks: number }
    },
  }
}

for (const backend of backends) {
  describe(`breakdowns of the request and the destination (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_TRUST_PROXY: 'true', LINKLINE_COUNTRY_HEADER: 'CF-IPCountry' } })
    })
    after(() => s.close())
    const { link, visit, stats } = helpers(() => s)

    test('country: the shipped database places the client address; a trusted header wins; a private address is unknown', async () => {
      const id = await link('/where')
      await visit('/where', { 'x-forwarded-for': '8.8.8.8' })
      await visit('/where', { 'x-forwarded-for': '2001:4860:4860::8888' })
      await visit('/where', { 'x-forwarded-for': '8.8.8.8', 'cf-ipcountry': 'DE' })
      await visit('/where', { 'x-forwarded-for': '10.1.2.3' })
      await visit('/where', { 'x-forwarded-for': '192.168.1.20' })
      // The right-most untrusted hop is the client: the left-most entry is whatever the client sent.
      await visit('/where', { 'x-forwarded-for': '8.8.8.8, 127.0.0.1' })
      const data = await stats(id)
      assert.deepEqual(data.countries, [
        { value: 'unknown', clicks: 3 },
        { value: 'US', clicks: 2 },
        { value: 'DE', clicks: 1 },
      ])
      assert.deepEqual(data.cities, [], 'no city without a city database')
    })

    test('languages: the first Accept-Language tag; none or `*` is unknown', async () => {
      const id = await link('/speak')
      await visit('/speak', { 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8' })
      await visit('/speak', { 'accept-language': 'fr-ch' })
      await visit('/speak', { 'accept-language': 'en-US,en;q=0.5' })
      await visit('/speak', { 'accept-language': '*' })
      await visit('/speak')
      assert.deepEqual((await stats(id)).languages, [
        { value: 'fr-ch', clicks: 2 },
        { value: 'unknown', clicks: 2 },
        { value: 'en-us', clicks: 1 },
      ])
    })

    test("UTM: from the final destination, the visit's query merged in (the visit's values win); none without", async () => {
      const tagged = await link('/tagged', 'https://shop.example/sale?utm_source=site&utm_medium=web')
      await visit('/tagged')
      await visit('/tagged?utm_source=mail&utm_campaign=launch')
      await visit('/tagged?qr=1&utm_campaign=Poster%20A')
      const data = await stats(tagged)
      assert.deepEqual(data.utmSources, [
        { value: 'site', clicks: 2 },
        { value: 'mail', clicks: 1 },
      ])
      assert.deepEqual(data.utmMediums, [{ value: 'web', clicks: 3 }])
      assert.deepEqual(data.utmCampaigns, [
        { value: 'Poster A', clicks: 1 },
        { value: 'launch', clicks: 1 },
        { value: 'none', clicks: 1 },
      ])

      const plain = await link('/plain', 'https://shop.example/plain?ref=x')
      await visit('/plain')
      await visit('/plain?utm_medium=sms')
      const other = await stats(plain)
      assert.deepEqual(other.utmSources, [{ value: 'none', clicks: 2 }])
      assert.deepEqual(other.utmMediums, [
        { value: 'none', clicks: 1 },
        { value: 'sms', clicks: 1 },
      ])
    })

    test('the clicks export and every breakdown carry the new fields; bots count in none of them', async () => {
      const id = await link('/exported', 'https://shop.example/?utm_source=site')
      await visit('/exported?utm_campaign=c1', { 'x-forwarded-for': '8.8.8.8', 'accept-language': 'de-AT,de;q=0.9' })
      await visit('/exported', { 'x-forwarded-for': '8.8.8.8', 'user-agent': 'Twitterbot/1.0' })
      const data = await stats(id)
      assert.equal(data.humanClicks, 1)
      assert.deepEqual(
        [data.languages, data.utmSources, data.utmMediums, data.utmCampaigns, data.countries],
        [
          [{ value: 'de-at', clicks: 1 }],
          [{ value: 'site', clicks: 1 }],
          [{ value: 'none', clicks: 1 }],
          [{ value: 'c1', clicks: 1 }],
          [{ value: 'US', clicks: 1 }],
        ],
      )
      const r = await s.request('GET', `/v1/links/${id}/clicks?format=ndjson`)
      assert.equal(r.status, 200, r.text)
      const clicks = r.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      const pick = (c: Record<string, unknown> | undefined) => c && [c.bot, c.country, c.language, c.utmSource, c.utmMedium, c.utmCampaign, c.city]
      assert.deepEqual(pick(clicks.find((c) => c.bot === false)), [false, 'US', 'de-at', 'site', null, 'c1', null])
      assert.deepEqual(pick(clicks.find((c) => c.bot === true)), [true, 'US', null, 'site', null, null, null])
      assert.doesNotMatch(r.text, /8\.8\.8\.8/, 'no address')
    })

    test('breakdowns stored before these dimensions existed count their visits as unknown / none', async () => {
      const id = await link('/older')
      const hour = hourOf(Date.now())
      // An hour row as a release without these dimensions wrote it.
      await s.container.storage.db
        .insertInto('link_click_rollups')
        .values({
          link_id: id,
          hour,
          total_clicks: 3,
          human_clicks: 3,
          bot_clicks: 0,
          qr_scans: 0,
          unique_visitors: 1,
          last_human_click_at: hour,
          facets: JSON.stringify({ referrer: { direct: 3 }, browser: { Chrome: 3 }, os: { Windows: 3 }, device: { desktop: 3 }, country: { FR: 3 } }),
        })
        .execute()
      // A visit rolled up into the same hour afterwards: the row is read back and completed.
      await visit('/older', { 'accept-language': 'it' })
      const data = await stats(id)
      assert.equal(data.humanClicks, 4)
      assert.deepEqual(data.languages, [
        { value: 'unknown', clicks: 3 },
        { value: 'it', clicks: 1 },
      ])
      assert.deepEqual(data.utmSources, [{ value: 'none', clicks: 4 }])
      assert.deepEqual(data.cities, [], 'cities count only visits looked up in a city database')
    })
  })

  describe(`cities, with a city database in LINKLINE_GEOIP_DB (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_TRUST_PROXY: 'true', LINKLINE_GEOIP_DB: CITY_DB } })
    })
    after(() => s.close())
    const { link, visit, stats } = helpers(() => s)

    test('"City, CC" per visit, unknown for an address without a city; its country comes from the same database', async () => {
      const id = await link('/cities')
      await visit('/cities', { 'x-forwarded-for': '81.2.69.160' })
      await visit('/cities', { 'x-forwarded-for': '81.2.69.161' })
      await visit('/cities', { 'x-forwarded-for': '2a01:e0a:1::1' })
      await visit('/cities', { 'x-forwarded-for': '8.8.8.8' })
      await visit('/cities', { 'x-forwarded-for': '10.0.0.1' })
      const data = await stats(id)
      assert.deepEqual(data.cities, [
        { value: 'London, GB', clicks: 2 },
        { value: 'unknown', clicks: 2 },
        { value: 'Paris, FR', clicks: 1 },
      ])
      assert.deepEqual(data.countries, [
        { value: 'GB', clicks: 2 },
        { value: 'FR', clicks: 1 },
        { value: 'US', clicks: 1 },
        { value: 'unknown', clicks: 1 },
      ])
      const r = await s.request('GET', `/v1/links/${id}/clicks?format=csv`)
      assert.match(r.text.split('\r\n')[0] ?? '', /,language,utmSource,utmMedium,utmCampaign,city$/)
      assert.match(r.text, /,"?London, GB"?\r\n/)
    })
  })
}
