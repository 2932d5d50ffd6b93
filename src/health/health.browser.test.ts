import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { chromiumMissing, signIn, startBrowsing, type Browsing } from '../../test/browser.js'

/** The destinations: every path answers what the test set last. */
let status = 500
const destination: Server = createServer((_, res) => res.writeHead(status).end())

/**
 * Destination health in the dashboard, in a real Chromium against the real server: the badges in the
 * list, "Broken destinations" in the navigation (the list filtered, in the URL), and "Check now" on
 * a link's page. Destinations are a server on 127.0.0.1 whose answer the test sets.
 */
describe('destination health in the dashboard, in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing
  let page: Page
  const ids: Record<string, string> = {}

  before(async () => {
    await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve))
    const port = (destination.address() as AddressInfo).port
    s = await startTestServer({ env: { LINKLINE_FETCH_ALLOW_PRIVATE: 'true', LINKLINE_PAGE_TITLES: 'off', LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    b = await startBrowsing(s)
    await b.person('member', { email: 'ana@example.com', name: 'Ana' })
    for (const name of ['gone', 'fine']) {
      const made = await s.request('POST', '/v1/links', { json: { destination: `http://127.0.0.1:${port}/${name}`, path: `/${name}`, title: name } })
      ids[name] = made.body.data.id
    }
    // /gone fails twice (broken); /fine is never checked.
    for (let i = 0; i < 2; i++) assert.equal((await s.request('POST', `/v1/links/${ids.gone}/check`)).status, 200)
    page = await b.open()
    await signIn(page, 'ana@example.com')
  })
  after(async () => {
    await b?.close()
    await s?.close()
    destination.closeAllConnections()
    destination.close()
  })

  test('badges in the list; Broken destinations lists the broken ones, in the URL', async () => {
    await page.locator(`tr[data-link="${ids.gone}"] [data-health="broken"]`).waitFor()
    await page.locator(`tr[data-link="${ids.fine}"] [data-health="unknown"]`).waitFor()
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Broken destinations' }).click()
    await page.waitForURL(/\?health=broken$/)
    await page.locator(`tr[data-link="${ids.fine}"]`).waitFor({ state: 'detached' })
    assert.deepEqual(await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-link'))), [ids.gone])
    assert.equal(await page.getByLabel('Filter by health').inputValue(), 'broken')
    assert.equal(await page.getByRole('link', { name: 'Broken destinations' }).getAttribute('aria-current'), 'page')
  })

  test('Check now on the link page turns a broken link ok once its destination answers', async () => {
    status = 200
    await page.locator(`tr[data-link="${ids.gone}"] a`, { hasText: '/gone' }).click()
    await page.locator('[data-health="broken"]').waitFor()
    await page.getByRole('button', { name: 'Check now' }).click()
    await page.locator('[data-health="ok"]').waitFor()
    assert.match((await page.locator('[data-health="ok"]').getAttribute('title')) ?? '', /HTTP 200/)
    assert.deepEqual(b.problems, [])
  })
})
