import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { visit } from '../../test/factories.js'
import { send } from '../../test/http-client.js'
import { chromiumMissing, fitsTheScreen, SCREENS, screenshot, section, signIn as signInAs, startBrowsing, type Browsing } from '../../test/browser.js'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
const DAY = 86_400_000

/**
 * Analytics in the dashboard, end to end in a real Chromium against the real server: visits made
 * through the redirect (browsers, a bot, a QR scan, countries from a trusted proxy's header), then
 * the Analytics page, a link's statistics, the links list sorted and searched, and a public page
 * opened signed out. On a desktop and on a phone-sized screen.
 */
describe('analytics in the dashboard, in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing
  const ids: Record<string, string> = {}

  before(async () => {
    s = await startTestServer({
      env: {
        LINKLINE_TRUST_PROXY: 'true',
        LINKLINE_COUNTRY_HEADER: 'CF-IPCountry',
        LINKLINE_CLICK_FLUSH_INTERVAL_MS: '50',
        LINKLINE_DOMAIN_VERIFICATION: 'off',
      },
    })
    b = await startBrowsing(s)
    await b.person('owner', { email: 'ana@example.com', name: 'Ana' })
    for (const [path, title, tags] of [
      ['/spring', 'Spring sale', ['season']],
      ['/autumn', 'Autumn catalogue', ['season', 'print']],
      ['/quiet', 'Nobody came', []],
    ] as const) {
      const made = await s.request('POST', '/v1/links', { json: { destination: `https://shop.example${path}`, path, title, tags } })
      assert.equal(made.status, 201, made.text)
      ids[path] = made.body.data.id
    }
    // Through the redirect, as a trusted proxy passes them on: 6 people on /spring (3 in France from a
    // news site, 2 in Germany on an iPhone, 1 QR scan in the US), a bot; 2 people on /autumn in Japan.
    const go = async (path: string, headers: Record<string, string>) => {
      const r = await send(s.url, 'GET', path, { headers: { host: s.host, ...headers } })
      assert.equal(r.status, 302, `${path}: ${r.status}`)
    }
    for (let i = 0; i < 3; i++)
      await go('/spring', { 'user-agent': CHROME, 'x-forwarded-for': '203.0.113.1', 'cf-ipcountry': 'FR', referer: 'https://news.example/post' })
    for (let i = 0; i < 2; i++) await go('/spring', { 'user-agent': IPHONE, 'x-forwarded-for': '203.0.113.2', 'cf-ipcountry': 'DE' })
    await go('/spring?qr=1', { 'user-agent': CHROME, 'x-forwarded-for': '203.0.113.3', 'cf-ipcountry': 'US' })
    await go('/spring', { 'user-agent': GOOGLEBOT, 'x-forwarded-for': '198.51.100.9' })
    for (let i = 0; i < 2; i++) await go('/autumn', { 'user-agent': CHROME, 'x-forwarded-for': '203.0.113.4', 'cf-ipcountry': 'JP' })
    // And one older visit on /autumn (ten days ago), through the same pipeline: in 30 days, not in 7.
    s.container.clicks.record(visit(ids['/autumn']!, Date.now() - 10 * DAY, { ip: '203.0.113.5', country: 'JP' }))
    await s.container.clicks.flush()
  })
  after(async () => {
    await b?.close()
    await s?.close()
  })

  const open = (options = {}) => b.open(options)
  const signIn = (page: Page) => signInAs(page, 'ana@example.com')
  /** A section of the navigation: on a phone it waits behind the Menu button. */
  const goTo = async (page: Page, name: string) => (await section(page, name)).click()
  const total = (page: Page, name: string) => page.locator(`[data-total="${name}"] .value`)
  /** Waits until a total reads `value` (statistics load after the page). */
  const totalIs = async (page: Page, name: string, value: string) => {
    await page.locator(`[data-total="${name}"] .value`, { hasText: new RegExp(`^${value}$`) }).waitFor()
  }

  for (const device of SCREENS) {
    test(`${device.name}: the Analytics page, a range, the chart's values, the links list, a public page`, async () => {
      const page = await open(device.options)
      await signIn(page)
      const tzRequests: string[] = []
      page.on('request', (r) => /\/v1\/(stats|links\/[^/]+\/stats|public\/)/.test(r.url()) && tzRequests.push(r.url()))

      // Analytics: every link, the last 30 days by default.
      await goTo(page, 'Analytics')
      await page.getByRole('heading', { name: 'Analytics' }).waitFor()
      await totalIs(page, 'Human clicks', '9')
      assert.equal(await total(page, 'Bot clicks').innerText(), '1')
      assert.equal(await total(page, 'Total clicks').innerText(), '10')
      assert.equal(await total(page, 'QR scans').innerText(), '1')
      assert.match(await total(page, 'Unique visitors').innerText(), /^[1-9]\d*$/)
      // Countries by their names, on the map too; a row picked stands out (it does not filter).
      const france = page.locator('[data-breakdown="Countries"] .bar-row', { hasText: 'France' })
      assert.match(await france.innerText(), /France\s+3/)
      await page.locator('.world-map path[data-country="FR"].shade-5').waitFor()
      await france.click()
      assert.equal(await france.getAttribute('aria-pressed'), 'true')
      await page.locator('.world-map path[data-country="FR"].picked').waitFor()
      assert.match(await page.locator('[data-breakdown="Referrers"]').innerText(), /news\.example\s+3/)
      assert.match(await page.locator('[data-breakdown="Top links"] li').first().innerText(), /Spring sale[\s\S]*6/)
      assert.ok(tzRequests.length > 0 && tzRequests.every((u) => new URL(u).searchParams.get('tz') !== null), 'every statistics request names the time zone')
      await fitsTheScreen(page, 'analytics')
      await screenshot(page, `analytics-${device.name}`)

      // 7 days leaves out the visit of ten days ago; the range is in the URL.
      await page.getByRole('button', { name: '7 d', exact: true }).click()
      await totalIs(page, 'Human clicks', '8')
      assert.match(page.url(), /range=7d/)
      // The last bucket (today) under the pointer: its clicks are read out.
      const over = page.locator('.chart .u-over')
      await over.scrollIntoViewIfNeeded()
      const box = (await over.boundingBox())!
      await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2)
      await page
        .getByTestId('chart-value')
        .filter({ hasText: /8 clicks/ })
        .waitFor()
      await page.getByRole('button', { name: '24 h', exact: true }).click()
      await totalIs(page, 'Human clicks', '8')
      assert.ok(tzRequests.some((u) => new URL(u).searchParams.get('interval') === 'hour'))
      // A tag's links only: the scope is in the URL as well.
      await page.goto('/app/analytics?tag=print&range=30d')
      await totalIs(page, 'Human clicks', '3')
      await fitsTheScreen(page, 'analytics by tag')

      // The links list: by clicks, busiest first; then a substring of a title.
      await goTo(page, 'Links')
      await page.locator(`tr[data-link="${ids['/quiet']}"]`).waitFor()
      if (!device.phone) await page.locator('th button[data-sort="clicks"]').click()
      else await page.getByLabel('Sort by').selectOption('-clicks')
      await page.waitForURL(/sort=-clicks/)
      await page.locator(`tbody tr:first-child[data-link="${ids['/spring']}"]`).waitFor()
      assert.deepEqual(await page.locator('tbody tr td[data-clicks]').evaluateAll((cells) => cells.map((c) => c.getAttribute('data-clicks'))), ['6', '3', '0'])
      await page.reload()
      await page.locator(`tbody tr:first-child[data-link="${ids['/spring']}"]`).waitFor()
      await page.getByLabel('Search links').fill('UTUMN')
      await page.waitForURL(/q=UTUMN/)
      await page.locator(`tr[data-link="${ids['/spring']}"]`).waitFor({ state: 'detached' })
      assert.equal(await page.locator('tbody tr').count(), 1)
      await fitsTheScreen(page, 'links list')
      await screenshot(page, `links-${device.name}`)
      await page.getByLabel('Search links').fill('')
      await page.locator(`tr[data-link="${ids['/spring']}"]`).waitFor()

      // A link's page: its statistics, then public statistics on, opened by someone signed out.
      await page.locator(`tr[data-link="${ids['/spring']}"] td.short a`).first().click()
      await page.getByRole('heading', { name: 'Spring sale' }).waitFor()
      await totalIs(page, 'Human clicks', '6')
      assert.match((await page.getByTestId('csv').getAttribute('href')) ?? '', /format=csv/)
      const toggle = page.getByLabel(/Anyone with the address/)
      // A click, not check(): the box follows the server's answer, which may come after Playwright looks.
      await toggle.click()
      const publicUrl = await page.getByTestId('public-url').locator('a').innerText()
      assert.equal(publicUrl, `http://${s.host}/app/public/${ids['/spring']}`)
      assert.equal((await s.request('GET', `/v1/links/${ids['/spring']}`)).body.data.publicStats, true)
      await fitsTheScreen(page, 'link page')
      await screenshot(page, `link-${device.name}`)

      const stranger = await open(device.options)
      await stranger.goto(publicUrl)
      await totalIs(stranger, 'Human clicks', '6')
      assert.equal(await stranger.getByTestId('who').count(), 0, 'nobody is signed in')
      await stranger.locator('[data-breakdown="Countries"] .bar-row', { hasText: 'Germany' }).waitFor()
      await fitsTheScreen(stranger, 'public page')
      await screenshot(stranger, `public-${device.name}`)

      await toggle.click()
      await page.getByTestId('public-url').waitFor({ state: 'detached' })
      await stranger.reload()
      await stranger.getByRole('heading', { name: 'These statistics are not public' }).waitFor()
      await stranger.goto(`/app/public/${ids['/autumn']}`)
      await stranger.getByRole('heading', { name: 'These statistics are not public' }).waitFor()
      assert.deepEqual(b.problems, [])
    })
  }

  test('domains: visits to missing paths on a custom domain, busiest first', async () => {
    assert.equal((await s.request('POST', '/v1/domains', { json: { name: 'go.example.com' } })).status, 201)
    for (const path of ['/summer-typo', '/summer-typo', '/summer-typo', '/old-flyer'])
      assert.equal((await send(s.url, 'GET', path, { headers: { host: 'go.example.com', 'user-agent': CHROME } })).status, 404)
    // Missing paths are written with the roll-up (every LINKLINE_CLICK_ROLLUP_INTERVAL_MS): wait for them.
    let listed: { path: string }[] = []
    for (let i = 0; i < 100 && listed.length < 2; i++) {
      await s.container.clicks.flush()
      listed = (await s.request('GET', '/v1/stats/not-found')).body.data ?? []
      if (listed.length < 2) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.equal(listed.length, 2, JSON.stringify(listed))
    for (const device of SCREENS) {
      const page = await open(device.options)
      await signIn(page)
      await page.goto('/app/domains')
      const rows = page.getByTestId('missing-paths').locator('tbody tr')
      await rows.first().waitFor()
      assert.match(await rows.first().innerText(), /go\.example\.com\/summer-typo[\s\S]*3/)
      assert.match(await rows.nth(1).innerText(), /\/old-flyer[\s\S]*1/)
      await fitsTheScreen(page, 'domains')
      await screenshot(page, `domains-${device.name}`)
    }
    assert.deepEqual(b.problems, [])
  })

  test('dark mode: the analytics and a public page, for the eye', async () => {
    for (const device of SCREENS) {
      const page = await open({ ...device.options, colorScheme: 'dark' })
      await signIn(page)
      await page.goto('/app/analytics')
      await totalIs(page, 'Human clicks', '9')
      await page.locator('.world-map').waitFor()
      await fitsTheScreen(page, 'analytics, dark')
      await screenshot(page, `analytics-${device.name}-dark`)
      await page.goto(`/app/links/${ids['/autumn']}`)
      await totalIs(page, 'Human clicks', '3')
      await screenshot(page, `link-${device.name}-dark`)
    }
    assert.deepEqual(b.problems, [])
  })
})
