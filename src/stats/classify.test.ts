import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { visit as visitOf } from '../../test/factories.js'
import { cityDatabase } from '../../test/mmdb.js'
import { classifyVisit, languageOf, utmOf } from './classify.js'
import type { Visit } from './clicks.js'
import { openGeoDatabase } from './geoip.js'
import { classifyBatch, encodeVisits, newBatchSlot, RAW_VISIT, VisitBatchBuilder, type EncodedVisits } from './visit-batch.js'
import { visitsOf } from './visit-columns.js'

/** Visits as the click writer classifies them: a batch through the serving thread's encoding. */
const classified = (visits: Visit[], salt = 'salt') => [...visitsOf(classifyBatch(encodeVisits(visits), () => salt))]
const classify = (visit: Visit, salt?: string) => classified([visit], salt)[0]!

/**
 * Real User-Agents of current browsers, devices and link-preview fetchers, and what the statistics
 * record for each. Kept as the fixture that any change of parser (ua-parser-js 2.x → 1.x for its
 * licence, bowser, …) must still satisfy.
 */
const FIXTURE: [userAgent: string, browser: string | null, os: string | null, device: string | null, bot: boolean][] = [
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome', 'Windows', 'desktop', false],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
    'Safari',
    'macOS',
    'desktop',
    false,
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    'Mobile Safari',
    'iOS',
    'mobile',
    false,
  ],
  [
    'Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1',
    'Mobile Safari',
    'iOS',
    'tablet',
    false,
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.39 Mobile Safari/537.36',
    'Chrome',
    'Android',
    'mobile',
    false,
  ],
  ['Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36', 'Chrome', 'Android', 'tablet', false],
  ['Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0', 'Firefox', 'Linux', 'desktop', false],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.51',
    'Edge',
    'Windows',
    'desktop',
    false,
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36 OPR/114.0.0.0',
    'Opera',
    'Windows',
    'desktop',
    false,
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
    'Chrome',
    'iOS',
    'mobile',
    false,
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
    'Samsung Internet',
    'Android',
    'mobile',
    false,
  ],
  ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome', 'Chrome OS', 'desktop', false],
  [
    'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36',
    'Samsung Internet',
    'Tizen',
    'smarttv',
    false,
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 355.0.0.0.0',
    'Instagram',
    'iOS',
    'mobile',
    false,
  ],
  ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', null, null, null, true],
  ['Twitterbot/1.0', null, null, null, true],
  ['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', null, null, null, true],
  ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', null, null, null, true],
  ['WhatsApp/2.23.20.0', null, null, null, true],
  ['curl/8.5.0', null, null, null, true],
  // Link previews and security scanners: what isbot knows, kept here so that an update cannot drop them…
  ['Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com', null, null, null, true],
  ['Mozilla/5.0 (compatible; MicrosoftPreview/2.0; +https://aka.ms/MicrosoftPreview)', null, null, null, true],
  ['Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)', null, null, null, true],
  ['TelegramBot (like TwitterBot)', null, null, null, true],
  ['LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)', null, null, null, true],
  ['Mozilla/5.0 (compatible; Yahoo Link Preview; https://help.yahoo.com/kb/mail/yahoo-link-preview-SLN23615.html)', null, null, null, true],
  ['Iframely/1.3.1 (+https://iframely.com/docs/about)', null, null, null, true],
  ['Barracuda Sentinel (EE)', null, null, null, true],
  ['Mimecast URL Protection', null, null, null, true],
  ['Mozilla/5.0 (compatible; urlscan.io)', null, null, null, true],
  ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36', null, null, null, true],
  ['python-requests/2.31.0', null, null, null, true],
  // …and what isbot 5 misses: Outlook fetching a link for its preview, Office checking a link before opening it.
  ['Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.4266; Pro)', null, null, null, true],
  ['Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 10.0; WOW64; Trident/7.0; .NET4.0C; .NET4.0E; ms-office; MSOffice 16)', null, null, null, true],
]

describe('User-Agent classification', () => {
  test('browser, OS, device and bot of real User-Agents', () => {
    for (const [userAgent, browser, os, device, bot] of FIXTURE) {
      const row = classify({ linkId: 'lnk_x', at: 0, qr: false, head: false, ip: '203.0.113.9', userAgent, referer: undefined, country: undefined }, 'salt')
      assert.deepEqual({ browser: row.browser, os: row.os, device: row.device, bot: row.bot }, { browser, os, device, bot }, userAgent)
    }
  })

  test('a HEAD request is a bot, whatever its User-Agent; so is a request without one', () => {
    const visit = (userAgent: string | undefined, head: boolean) =>
      classify({ linkId: 'lnk_x', at: 0, qr: false, head, ip: '203.0.113.9', userAgent, referer: undefined, country: undefined }, 'salt').bot
    const chrome = (FIXTURE[0] as (typeof FIXTURE)[number])[0]
    assert.equal(visit(chrome, false), false)
    assert.equal(visit(chrome, true), true)
    assert.equal(visit(undefined, false), true)
    assert.equal(visit('', false), true)
  })

  test('a batch classifies each visit as it would alone; the visitor key depends on IP, User-Agent and the day, and is never the IP', () => {
    const chrome = (FIXTURE[0] as (typeof FIXTURE)[number])[0]
    const iphone = (FIXTURE[1] as (typeof FIXTURE)[number])[0]
    const base: Visit = { linkId: 'lnk_a', at: 0, qr: false, head: false, ip: '203.0.113.9', userAgent: chrome, referer: undefined, country: undefined }
    const visits: Visit[] = [
      base,
      { ...base, linkId: 'lnk_b', qr: true, referer: 'https://News.Example.com/item?id=1', country: 'de' },
      { ...base, ip: '203.0.113.10' },
      { ...base, userAgent: iphone, referer: 'not a url', country: 'Germany' },
      { ...base, head: true, qr: true },
      base,
    ]
    const batch = classified(visits)
    assert.deepEqual(
      batch.map((v) => classify(visits[batch.indexOf(v)]!)),
      batch,
      'the same alone as in a batch',
    )
    assert.deepEqual(
      batch.map((v) => [v.linkId, v.qr, v.bot, v.referrer, v.country, v.browser]),
      [
        ['lnk_a', false, false, null, null, 'Chrome'],
        ['lnk_b', true, false, 'news.example.com', 'DE', 'Chrome'],
        ['lnk_a', false, false, null, null, 'Chrome'],
        ['lnk_a', false, false, null, null, batch[3]!.browser],
        ['lnk_a', true, true, null, null, 'Chrome'],
        ['lnk_a', false, false, null, null, 'Chrome'],
      ],
    )
    const keys = batch.map((v) => v.visitorKey)
    assert.match(keys[0]!, /^[\w-]{22}$/)
    assert.equal(keys[1], keys[0], 'the same visitor on another link')
    assert.notEqual(keys[2], keys[0], 'another IP')
    assert.notEqual(keys[3], keys[0], 'another User-Agent')
    assert.equal(keys[5], keys[0])
    assert.notEqual(classify(base, 'the next day')!.visitorKey, keys[0], "another day's salt")
    assert.ok(!keys.some((k) => k.includes('203.0.113')))
  })

  test('one builder, batch after batch: each batch holds its own strings, whatever the batches before held', () => {
    const builder = new VisitBatchBuilder()
    const visit = (linkId: string, ip: string): Visit => ({
      linkId,
      at: 0,
      qr: false,
      head: false,
      ip,
      userAgent: 'curl/8',
      referer: undefined,
      country: undefined,
    })
    const decode = () => [...visitsOf(classifyBatch(builder.take(), () => 'salt'))].map((v) => v.linkId)
    builder.add(visit('lnk_a', '192.0.2.1'))
    builder.add(visit('lnk_b', '192.0.2.1'))
    const first = builder.take()
    assert.deepEqual(first.strings, ['192.0.2.1', 'curl/8'])
    assert.deepEqual(first.links, ['lnk_a', 'lnk_b'])
    // Strings of the batch before are new again in this one, numbered from 0.
    builder.add(visit('lnk_b', '192.0.2.2'))
    builder.add(visit('lnk_a', '192.0.2.2'))
    const second = builder.take()
    assert.deepEqual(second.strings, ['192.0.2.2', 'curl/8'])
    assert.deepEqual(second.links, ['lnk_b', 'lnk_a'])
    // The IP of each visit is the new batch's string 0.
    assert.deepEqual([...second.numbers.filter((_, i) => i % RAW_VISIT.width === RAW_VISIT.index.ip)], [0, 0])
    assert.deepEqual(first.strings, ['192.0.2.1', 'curl/8'], 'a batch taken is not changed by the next')
    assert.deepEqual(first.links, ['lnk_a', 'lnk_b'], 'a batch taken is not changed by the next')
    const empty = builder.take()
    assert.equal(empty.numbers.length, 0, 'empty after a take')
    assert.deepEqual(empty.links, [])
    // Far more distinct strings than one batch holds (the table forgets them) and batches still decode.
    for (let i = 0; i < 5000; i++) builder.add(visit(`lnk_${i}`, `198.51.${i >> 8}.${i & 255}`))
    const many = builder.take()
    assert.equal(many.strings.length, 5000 + 1)
    assert.equal(many.links.length, 5000)
    builder.add(visit('lnk_4999', '198.51.100.1'))
    builder.add(visit('lnk_z', '198.51.100.1'))
    assert.deepEqual(decode(), ['lnk_4999', 'lnk_z'])
    builder.add(visit('lnk_0', '198.51.100.0'))
    assert.deepEqual(decode(), ['lnk_0'])
  })

  test('visits that bring their link’s batch slot list each link once per batch, whichever builder filled the slot before', () => {
    const slots = { a: newBatchSlot(), b: newBatchSlot() }
    const visit = (link: 'a' | 'b', at: number): Visit => visitOf(`lnk_${link}`, at, { slot: slots[link] })
    const links = (batch: EncodedVisits) => [...visitsOf(classifyBatch(batch, () => 'salt'))].map((v) => `${v.linkId}@${v.at}`)
    const builder = new VisitBatchBuilder()
    for (const [link, at] of [
      ['a', 1],
      ['b', 2],
      ['a', 3],
      ['a', 4],
      ['b', 5],
    ] as const)
      builder.add(visit(link, at))
    const first = builder.take()
    assert.deepEqual(first.links, ['lnk_a', 'lnk_b'])
    assert.deepEqual(links(first), ['lnk_a@1', 'lnk_b@2', 'lnk_a@3', 'lnk_a@4', 'lnk_b@5'])
    // The next batch numbers its links afresh: b, seen first now, is its link 0.
    builder.add(visit('b', 6))
    builder.add(visit('a', 7))
    const second = builder.take()
    assert.deepEqual(second.links, ['lnk_b', 'lnk_a'])
    assert.deepEqual(links(second), ['lnk_b@6', 'lnk_a@7'])
    // Another builder (another click buffer, a test's encodeVisits) never reads a slot filled for this one.
    const other = new VisitBatchBuilder()
    other.add(visit('a', 8))
    builder.add(visit('b', 9))
    other.add(visit('b', 10))
    assert.deepEqual(links(other.take()), ['lnk_a@8', 'lnk_b@10'])
    assert.deepEqual(links(builder.take()), ['lnk_b@9'])
    // A visit without a slot is listed with its own id.
    assert.deepEqual(links(encodeVisits([visit('a', 11), { ...visit('b', 12), slot: undefined }, visit('a', 13)])), ['lnk_a@11', 'lnk_b@12', 'lnk_a@13'])
  })
})

describe('Accept-Language, UTM parameters and places', () => {
  test('the first Accept-Language tag, as language or language-region, lower-cased', () => {
    const cases: [string | undefined, string | null][] = [
      ['fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5', 'fr-ch'],
      ['en-US,en;q=0.9', 'en-us'],
      ['de', 'de'],
      ['  DE-at ;q=1', 'de-at'],
      ['zh-Hant-TW,zh;q=0.9', 'zh-tw'],
      ['zh-Hans', 'zh'],
      ['es-419', 'es-419'],
      ['en_GB', 'en-gb'],
      ['en-GB-oxendict', 'en-gb'],
      ['sr-Latn', 'sr'],
      ['fil-PH', 'fil-ph'],
      ['*', null],
      ['*, en', null],
      ['', null],
      [' , en', null],
      ['english', null],
      ['i-klingon', null],
      ['x-pig-latin', null],
      [undefined, null],
    ]
    for (const [header, language] of cases) assert.equal(languageOf(header), language, String(header))
  })

  test('UTM parameters of the final location: the first of each, trimmed and cut to 100 characters, case kept; empty is none', () => {
    assert.deepEqual(utmOf('https://shop.example/p?utm_source=Newsletter&utm_medium=email&utm_campaign=spring%20sale#top'), {
      source: 'Newsletter',
      medium: 'email',
      campaign: 'spring sale',
    })
    assert.deepEqual(utmOf('https://shop.example/?utm_source=a&utm_source=b&utm_medium=&utm_campaign=+x+'), { source: 'a', medium: null, campaign: 'x' })
    assert.deepEqual(utmOf('https://shop.example/#?utm_source=a'), { source: null, medium: null, campaign: null })
    assert.deepEqual(utmOf('https://shop.example/utm_source'), { source: null, medium: null, campaign: null })
    assert.deepEqual(utmOf(undefined), { source: null, medium: null, campaign: null })
    assert.equal(utmOf(`https://x.example/?utm_source=${'s'.repeat(300)}`).source, 's'.repeat(100))
    // A cut through a character of two UTF-16 units drops its first half rather than keep it alone.
    assert.equal(utmOf(`https://x.example/?utm_source=${'s'.repeat(99)}%F0%9F%98%80`).source, 's'.repeat(99))
  })

  test('classifyVisit: missing values are none; a trusted country header wins over the IP database', () => {
    const bare = classifyVisit({ userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0', referer: undefined, country: undefined, head: false, qr: false })
    assert.deepEqual([bare.language, bare.utmSource, bare.utmMedium, bare.utmCampaign, bare.city, bare.country], [null, null, null, null, null, null])
    const base = { userAgent: undefined, referer: undefined, head: false, qr: false }
    const london = { country: 'GB', city: 'London, GB' }
    assert.deepEqual(
      [classifyVisit({ ...base, country: 'de', place: london }).country, classifyVisit({ ...base, country: 'de', place: london }).city],
      ['DE', 'London, GB'],
    )
    assert.equal(classifyVisit({ ...base, country: 'Germany', place: london }).country, 'GB', 'a header value that is no country leaves it to the database')
    assert.equal(classifyVisit({ ...base, country: undefined, place: { country: null, city: null } }).country, null)
    const full = classifyVisit({ ...base, country: undefined, acceptLanguage: 'pt-BR,pt;q=0.9', utmLocation: 'https://d.example/?utm_medium=social' })
    assert.deepEqual([full.language, full.utmSource, full.utmMedium, full.utmCampaign], ['pt-br', null, 'social', null])
  })

  test('a batch classified with an IP database: country and city per address, looked up once, the trusted header first', () => {
    const dir = mkdtempSync(join(tmpdir(), 'linkline-classify-'))
    try {
      writeFileSync(join(dir, 'city.mmdb'), cityDatabase())
      const geo = openGeoDatabase(join(dir, 'city.mmdb'))
      let lookups = 0
      const counting = { cities: geo.cities, place: (address: string) => (lookups++, geo.place(address)) }
      const base = visitOf('lnk_a', 0, { ip: '81.2.69.160', acceptLanguage: 'fr-CH, fr;q=0.9' })
      const visits: Visit[] = [
        base,
        { ...base, at: 1 },
        { ...base, at: 2, country: 'FR' },
        { ...base, at: 3, ip: '8.8.8.8', utmLocation: 'https://d.example/?utm_source=mail&utm_campaign=launch' },
        { ...base, at: 4, ip: '10.0.0.1', acceptLanguage: undefined },
        { ...base, at: 5, ip: undefined },
      ]
      const batch = [...visitsOf(classifyBatch(encodeVisits(visits), () => 'salt', counting))]
      assert.deepEqual(
        batch.map((v) => [v.country, v.city, v.language, v.utmSource, v.utmCampaign]),
        [
          ['GB', 'London, GB', 'fr-ch', null, null],
          ['GB', 'London, GB', 'fr-ch', null, null],
          ['FR', 'London, GB', 'fr-ch', null, null],
          ['US', 'unknown', 'fr-ch', 'mail', 'launch'],
          [null, 'unknown', null, null, null],
          [null, 'unknown', 'fr-ch', null, null],
        ],
      )
      assert.equal(lookups, 4, 'once per distinct address of the batch')
      // Without a database: no country but the header's, no city.
      const plain = [...visitsOf(classifyBatch(encodeVisits(visits), () => 'salt'))]
      assert.deepEqual(
        plain.map((v) => [v.country, v.city]),
        [
          [null, null],
          [null, null],
          ['FR', null],
          [null, null],
          [null, null],
          [null, null],
        ],
      )
      // A country database is not asked for a visit the trusted header already placed.
      lookups = 0
      const countries = { cities: false, place: (address: string) => (lookups++, { country: address === '8.8.8.8' ? 'US' : null, city: null }) }
      classifyBatch(
        encodeVisits([
          { ...base, country: 'FR' },
          { ...base, ip: '8.8.8.8', country: 'FR' },
        ]),
        () => 'salt',
        countries,
      )
      assert.equal(lookups, 0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
