import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { linkRequests } from '../../test/link-requests.js'
import { PASSWORD_TRIES } from './redirect.password.js'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36'
const IPAD = 'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'
const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

for (const backend of backends) {
  describe(`link controls (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_DOMAIN_VERIFICATION: 'off', LINKLINE_COUNTRY_HEADER: 'CF-IPCountry' } })
    })
    after(() => s.close())

    const { create, update, refused } = linkRequests(() => s)
    const visit = (path: string, headers: Record<string, string> = { 'user-agent': CHROME }, method = 'GET') =>
      s.request(method, path, { token: null, headers })
    const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
      s.request('POST', path, { token: null, form, headers: { 'user-agent': CHROME, ...headers } })
    const assertPage = (r: { headers: Record<string, unknown>; text: string }) => {
      assert.match(String(r.headers['content-type']), /^text\/html; charset=utf-8/)
      assert.equal(r.headers['cache-control'], 'private, no-store')
      assert.match(String(r.headers['content-security-policy']), /default-src 'none'/)
      assert.doesNotMatch(r.text, /<script/i)
    }

    test('every link carries the controls, unset by default; the password is never returned', async () => {
      const plain = await create({ destination: 'https://c.example/plain' })
      assert.deepEqual(
        [plain.redirectType, plain.expiresAt, plain.maxClicks, plain.expiredUrl, plain.hasPassword, plain.rules, plain.tags],
        [302, null, null, null, false, null, []],
      )
      const full = await create({
        destination: 'https://c.example/full',
        redirectType: 308,
        expiresAt: '2099-01-01T00:00:00+01:00',
        maxClicks: 10,
        expiredUrl: 'https://c.example/Over',
        password: 'open sesame',
        rules: [{ when: { device: ['ios'], country: ['de'], language: ['DE-at'] }, destination: 'https://c.example/ios' }],
        tags: ['b', 'a', 'b'],
      })
      assert.equal(full.redirectType, 308)
      assert.equal(full.expiresAt, '2098-12-31T23:00:00.000Z')
      assert.equal(full.maxClicks, 10)
      assert.equal(full.expiredUrl, 'https://c.example/Over')
      assert.equal(full.hasPassword, true)
      assert.equal('password' in full, false)
      assert.deepEqual(full.rules, [{ when: { device: ['ios'], country: ['DE'], language: ['de-at'] }, destination: 'https://c.example/ios' }])
      assert.deepEqual(full.tags, ['a', 'b'])
      const read = (await s.request('GET', `/v1/links/${full.id}`)).body.data
      assert.deepEqual(read, full)
      assert.doesNotMatch(JSON.stringify((await s.request('GET', '/v1/links?limit=100')).body), /sesame|scrypt/)
      const cleared = await update(full.id, { password: null, rules: null, expiresAt: '', maxClicks: null, expiredUrl: null, tags: [], redirectType: 302 })
      assert.deepEqual(
        [cleared.redirectType, cleared.expiresAt, cleared.maxClicks, cleared.expiredUrl, cleared.hasPassword, cleared.rules, cleared.tags],
        [302, null, null, null, false, null, []],
      )
    })

    test('form bodies: repeated fields, a single value, JSON-encoded rules, empty for null', async () => {
      const r = await s.request('POST', '/v1/links', {
        form: {
          destination: 'https://c.example/form',
          redirectType: '307',
          maxClicks: '3',
          expiresAt: '',
          rules: JSON.stringify([{ when: { os: ['Android'] }, destination: 'https://c.example/android' }]),
          tags: 'solo',
        },
      })
      assert.equal(r.status, 201, r.text)
      assert.equal(r.body.data.redirectType, 307)
      assert.equal(r.body.data.maxClicks, 3)
      assert.equal(r.body.data.expiresAt, null)
      assert.deepEqual(r.body.data.tags, ['solo'])
      assert.equal(r.body.data.rules[0].destination, 'https://c.example/android')
      const raw = await s.request('POST', '/v1/links', {
        raw: 'destination=https%3A%2F%2Fc.example%2Ff2&tags=x&tags=y',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
      assert.equal(raw.status, 201, raw.text)
      assert.deepEqual(raw.body.data.tags, ['x', 'y'])
    })

    test('bad input: a 400 naming the parameter, on create and update', async () => {
      const d = 'https://c.example/bad'
      await refused({ destination: d, redirectType: 303 }, 'redirectType')
      await refused({ destination: d, expiresAt: 'tomorrow' }, 'expiresAt')
      await refused({ destination: d, maxClicks: 0 }, 'maxClicks')
      await refused({ destination: d, maxClicks: 1.5 }, 'maxClicks')
      await refused({ destination: d, expiredUrl: 'javascript:alert(1)' }, 'expiredUrl')
      await refused({ destination: d, password: 'abc' }, 'password')
      await refused({ destination: d, password: 'x'.repeat(129) }, 'password')
      await refused({ destination: d, rules: Array.from({ length: 21 }, () => ({ when: {}, destination: d })) }, 'rules')
      await refused({ destination: d, rules: [{ when: { device: ['phone'] }, destination: d }] }, 'rules[0][when][device][0]')
      await refused({ destination: d, rules: [{ when: { country: ['Germany'] }, destination: d }] }, 'rules[0][when][country][0]')
      await refused({ destination: d, rules: [{ when: { weather: ['rain'] }, destination: d }] }, 'rules[0][when][weather]')
      await refused({ destination: d, rules: [{ when: {}, destination: 'ftp://x.example/' }] }, 'rules[0][destination]')
      await refused({ destination: d, rules: [{ when: {} }] }, 'rules[0][destination]')
      await refused({ destination: d, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags')
      await refused({ destination: d, tags: ['x'.repeat(51)] }, 'tags[0]')
      await refused({ destination: d, tags: [''] }, 'tags[0]')
      const link = await create({ destination: d, path: '/c-loop' })
      await refused({ rules: [{ when: {}, destination: `http://${s.host}/c-loop` }] }, 'rules[0][destination]', 'PATCH', `/v1/links/${link.id}`)
      await refused({ expiredUrl: `http://${s.host}/c-loop` }, 'expiredUrl', 'PATCH', `/v1/links/${link.id}`)
      await refused({ maxClicks: -1 }, 'maxClicks', 'PUT', `/v1/links/${link.id}`)
    })

    test('redirectType sets the status; Cache-Control stays private, no-store', async () => {
      for (const status of [301, 302, 307, 308]) {
        const link = await create({ destination: `https://c.example/s${status}`, redirectType: status })
        const r = await visit(link.path)
        assert.equal(r.status, status)
        assert.equal(r.headers.location, `https://c.example/s${status}`)
        assert.equal(r.headers['cache-control'], 'private, no-store')
      }
    })

    test('an expired link answers 410 with a small page, or redirects to expiredUrl; an update takes effect at once', async () => {
      const link = await create({ destination: 'https://c.example/live', path: '/c-expiring' })
      assert.equal((await visit('/c-expiring')).status, 302)
      await update(link.id, { expiresAt: '2020-01-01T00:00:00Z' })
      const gone = await visit('/c-expiring')
      assert.equal(gone.status, 410)
      assertPage(gone)
      assert.match(gone.text, /expired/)
      assert.equal((await visit('/c-expiring', {}, 'HEAD')).status, 410)
      await update(link.id, { expiredUrl: 'https://c.example/too-late' })
      const moved = await visit('/c-expiring')
      assert.equal(moved.status, 302)
      assert.equal(moved.headers.location, 'https://c.example/too-late')
      await update(link.id, { expiresAt: null })
      assert.equal((await visit('/c-expiring')).headers.location, 'https://c.example/live')
      await update(link.id, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() })
      assert.equal((await visit('/c-expiring')).headers.location, 'https://c.example/live')
    })

    test('maxClicks counts human visits, exactly, and expired visits are not recorded', async () => {
      const link = await create({ destination: 'https://c.example/limited', path: '/c-limited', maxClicks: 3 })
      assert.equal((await visit('/c-limited')).status, 302)
      // Bots and HEAD requests are not human visits: they do not count (nor learn the destination: below).
      assert.equal((await visit('/c-limited', { 'user-agent': BOT })).status, 200)
      assert.equal((await visit('/c-limited', { 'user-agent': CHROME }, 'HEAD')).status, 200)
      assert.equal((await visit('/c-limited')).status, 302)
      // Written to the statistics in between: the stored count and the unwritten ones add up, nothing twice.
      await s.container.clicks.flush()
      s.container.redirectCache.clear()
      assert.equal((await visit('/c-limited')).status, 302)
      assert.equal((await visit('/c-limited')).status, 410)
      assert.equal((await visit('/c-limited')).status, 410)
      await s.container.clicks.flush()
      const stats = (await s.request('GET', `/v1/links/${link.id}/stats`)).body.data
      assert.equal(stats.humanClicks, 3)
      // Raising the limit reopens the link on the next request.
      await update(link.id, { maxClicks: 4 })
      assert.equal((await visit('/c-limited')).status, 302)
      assert.equal((await visit('/c-limited')).status, 410)
    })

    test("a visit that is not counted never learns a limited link's destination; a person continues and is counted", async () => {
      const link = await create({ destination: 'https://c.example/once-only', path: '/c-once', maxClicks: 1 })
      const uncounted = () => [
        visit('/c-once?ref=mail', { 'user-agent': BOT }),
        visit('/c-once?ref=mail', {}),
        visit('/c-once?ref=mail', { 'user-agent': CHROME }, 'HEAD'),
        visit('/c-once/?ref=mail', { 'user-agent': BOT }),
      ]
      for (const r of await Promise.all([...uncounted(), ...uncounted()])) {
        assert.equal(r.status, 200)
        assertPage(r)
        assert.equal(r.headers.location, undefined)
        assert.doesNotMatch(r.text, /once-only/)
      }
      const page = await visit('/c-once?ref=mail&a=%22x%22', { 'user-agent': BOT })
      const href = /<a href="([^"]+)"/.exec(page.text)?.[1]
      assert.equal(href, '/c-once?ref=mail&#38;a=%22x%22', 'the very same short URL, escaped')
      // A bot following the continue link is a bot all the same.
      assert.equal((await visit('/c-once?ref=mail&a=%22x%22', { 'user-agent': BOT })).status, 200)
      const person = await visit('/c-once?ref=mail&a=%22x%22')
      assert.equal(person.status, 302)
      assert.equal(person.headers.location, 'https://c.example/once-only?ref=mail&a=%22x%22')
      // Spent: expired for everyone, and nobody learns anything more.
      for (const r of [await visit('/c-once'), await visit('/c-once', { 'user-agent': BOT }), await visit('/c-once', {}, 'HEAD')]) assert.equal(r.status, 410)
      await s.container.clicks.flush()
      assert.equal((await s.request('GET', `/v1/links/${link.id}/stats`)).body.data.humanClicks, 1)
      // Behind a password too: the right password from a bot gets the page, not the destination.
      await create({ destination: 'https://c.example/locked-once', path: '/c-locked-once', maxClicks: 1, password: 'open sesame' })
      const bot = await post('/c-locked-once', { password: 'open sesame' }, { 'user-agent': BOT })
      assert.equal(bot.status, 200)
      assert.equal(bot.headers.location, undefined)
      assert.doesNotMatch(bot.text, /c\.example/)
      assert.equal((await post('/c-locked-once', { password: 'open sesame' })).headers.location, 'https://c.example/locked-once')
    })

    test('a password-protected link shows a form; the right password redirects (303), a wrong one is 401', async () => {
      const link = await create({ destination: 'https://c.example/secret?a=1', path: '/c-locked', password: 'correct horse' })
      const form = await visit('/c-locked')
      assert.equal(form.status, 200)
      assertPage(form)
      assert.match(form.text, /<form method="post">/)
      assert.match(String(form.headers['content-security-policy']), /form-action 'self'/)
      assert.equal((await visit('/c-locked', { 'user-agent': CHROME }, 'HEAD')).status, 200)
      const wrong = await post('/c-locked', { password: 'wrong horse' })
      assert.equal(wrong.status, 401)
      assertPage(wrong)
      assert.match(wrong.text, /Wrong password/)
      const right = await post('/c-locked?b=2', { password: 'correct horse' })
      assert.equal(right.status, 303)
      assert.equal(right.headers.location, 'https://c.example/secret?a=1&b=2')
      await s.container.clicks.flush()
      assert.equal((await s.request('GET', `/v1/links/${link.id}/stats`)).body.data.humanClicks, 1)
      // Not a form: 415; too large: 413; no password field: 401.
      assert.equal((await s.request('POST', '/c-locked', { token: null, json: { password: 'correct horse' } })).status, 415)
      assert.equal((await post('/c-locked', { password: 'x'.repeat(5000) })).status, 413)
      assert.equal((await post('/c-locked', {})).status, 401)
      // POST elsewhere tells no more than GET: an unknown path and a link without password are both 404, as before.
      assert.equal((await post('/c-nothing-here', { password: 'x' })).status, 404)
      await create({ destination: 'https://c.example/open', path: '/c-open' })
      assert.equal((await post('/c-open', { password: 'x' })).status, 404)
      // Removing the password takes effect on the next request.
      await update(link.id, { password: null })
      assert.equal((await visit('/c-locked')).status, 302)
    })

    test('failed passwords are limited per link and client address', async () => {
      await create({ destination: 'https://c.example/guarded', path: '/c-guarded', password: 'letmein!' })
      // The tests' proxy header is not trusted: every try comes from the same address.
      for (let i = 0; i < PASSWORD_TRIES; i++) assert.equal((await post('/c-guarded', { password: `nope${i}` })).status, 401)
      const blocked = await post('/c-guarded', { password: 'letmein!' })
      assert.equal(blocked.status, 429)
      assert.match(String(blocked.headers['retry-after']), /^\d+$/)
      assertPage(blocked)
      // Another link is another count.
      await create({ destination: 'https://c.example/other', path: '/c-guarded-2', password: 'letmein!' })
      assert.equal((await post('/c-guarded-2', { password: 'letmein!' })).status, 303)
    })

    test('rules: the first rule whose every condition matches picks the destination', async () => {
      await create({
        destination: 'https://c.example/default',
        path: '/c-rules',
        rules: [
          { when: { device: ['ios'], country: ['FR'] }, destination: 'https://c.example/ios-fr' },
          { when: { device: ['ios'] }, destination: 'https://c.example/ios' },
          { when: { os: ['android'] }, destination: 'https://c.example/android' },
          { when: { device: ['tablet'] }, destination: 'https://c.example/tablet' },
          { when: { language: ['de'] }, destination: 'https://c.example/de' },
          { when: { country: ['ch'], device: ['desktop'] }, destination: 'https://c.example/ch-desktop' },
        ],
      })
      const to = async (headers: Record<string, string>) => (await visit('/c-rules', headers)).headers.location
      assert.equal(await to({ 'user-agent': IPHONE, 'cf-ipcountry': 'FR' }), 'https://c.example/ios-fr')
      assert.equal(await to({ 'user-agent': IPHONE, 'cf-ipcountry': 'DE' }), 'https://c.example/ios')
      assert.equal(await to({ 'user-agent': ANDROID }), 'https://c.example/android')
      assert.equal(await to({ 'user-agent': IPAD }), 'https://c.example/ios')
      assert.equal(await to({ 'user-agent': CHROME, 'accept-language': 'en;q=0.5, de-AT;q=0.9' }), 'https://c.example/de')
      assert.equal(await to({ 'user-agent': CHROME, 'accept-language': 'en, de;q=0.9' }), 'https://c.example/default')
      assert.equal(await to({ 'user-agent': CHROME, 'cf-ipcountry': 'CH' }), 'https://c.example/ch-desktop')
      assert.equal(await to({ 'user-agent': BOT, 'cf-ipcountry': 'CH' }), 'https://c.example/default')
      assert.equal(await to({}), 'https://c.example/default')
      // The visit's query still merges into the destination a rule picked.
      assert.equal((await visit('/c-rules?x=1', { 'user-agent': ANDROID })).headers.location, 'https://c.example/android?x=1')
    })

    test('tags: returned on every link, filtered with query[tag] (also as JSON), replaced on update', async () => {
      const a = await create({ destination: 'https://c.example/t1', tags: ['promo', 'summer'] })
      const b = await create({ destination: 'https://c.example/t2', tags: ['promo'] })
      await create({ destination: 'https://c.example/t3', tags: ['winter'] })
      const ids = async (q: string) => (await s.request('GET', `/v1/links?${q}`)).body.data.map((l: { id: string }) => l.id)
      assert.deepEqual(await ids('query[tag]=promo'), [b.id, a.id])
      assert.deepEqual(await ids(`query=${encodeURIComponent('{"tag":"summer"}')}`), [a.id])
      assert.deepEqual(await ids('query[tag]=nothing'), [])
      await update(a.id, { tags: ['autumn'] })
      assert.deepEqual(await ids('query[tag]=promo'), [b.id])
      assert.deepEqual((await s.request('GET', `/v1/links/${a.id}`)).body.data.tags, ['autumn'])
      // Another owner's tags are not listed.
      const other = await s.createToken('bob')
      assert.deepEqual((await s.request('GET', '/v1/links?query[tag]=autumn', { token: other })).body.data, [])
    })
  })
}
