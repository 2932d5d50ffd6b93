import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { BrowserContextOptions, Page } from 'playwright-core'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { chromiumMissing, DESKTOP, fitsTheScreen, PHONE, screenshot, startBrowsing, type Browsing } from '../../test/browser.js'
import { tabTo } from '../../test/keyboard.js'
import type { TxtResolver } from '../domains/domains.verification.js'

const DOMAIN = 'go.acme.example'

/**
 * The Domains page end to end, in a real Chromium against the real server, verification on and DNS
 * answered by a stand-in the test publishes records in: a domain added with the keyboard alone, its
 * TXT record copied, "Verify now" before and after the record is published, the links counted per
 * domain, and the page at 1440 and 360 px wide.
 */
describe('the domains page in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing
  /** DNS as the server sees it: TXT records published by the test, NXDOMAIN for the rest. */
  const published = new Map<string, string[][]>()
  const dns: TxtResolver = {
    async resolveTxt(name) {
      const found = published.get(name)
      if (found === undefined) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
      return found
    },
  }

  before(async () => {
    s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'on' }, container: { txtResolver: dns } })
    b = await startBrowsing(s)
    // Links on the default domain, to be counted beside it.
    for (const path of ['/one', '/two', '/three']) {
      assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://example.com/', path } })).status, 201)
    }
  })
  after(async () => {
    await b?.close()
    await s?.close()
    assert.deepEqual(b.problems, [])
  })

  const signedIn = (options: BrowserContextOptions) => b.signedIn('admin', options)
  const card = (page: Page, name: string) => page.locator(`li[data-domain="${name}"]`)
  const clipboard = (page: Page) => page.evaluate<string>('navigator.clipboard.readText()')

  let desktop: Page

  test('keyboard only: add a domain; the focus moves to it, with the records to publish', async () => {
    desktop = await signedIn(DESKTOP)
    await tabTo(desktop, desktop.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Domains', exact: true }), 80)
    await desktop.keyboard.press('Enter')
    await desktop.getByRole('heading', { name: 'Domains', level: 1 }).waitFor()
    await tabTo(desktop, desktop.getByLabel('Domain name'), 80)
    await desktop.keyboard.type('Go.Acme.Example')
    await desktop.keyboard.press('Enter')
    const added = card(desktop, DOMAIN)
    await added.getByRole('heading', { name: DOMAIN }).and(desktop.locator(':focus')).waitFor()
    assert.equal(await desktop.getByLabel('Domain name').inputValue(), '', 'the field is emptied for the next one')
    assert.match(await added.innerText(), /pending verification/)
    assert.match(await added.innerText(), /0 links/)
    // The page is served from localhost: the domain's visitors are sent there by a CNAME.
    const cname = added.locator('[data-record="CNAME"]')
    assert.match(await cname.innerText(), new RegExp(`Name\\s+${DOMAIN.replace(/\./g, '\\.')}[\\s\\S]*Value\\s+localhost\\b`))
    assert.match(await added.innerText(), /add A and AAAA records with the addresses of localhost/)
    await screenshot(desktop, 'domains-1440-pending')
    await fitsTheScreen(desktop, '1440 px')
  })

  test('copy the TXT record: its value reaches the clipboard, and "Copied" is announced', async () => {
    const { verification } = (await s.request('GET', `/v1/domains/${DOMAIN}`)).body.data as { verification: { name: string; value: string } }
    const txt = card(desktop, DOMAIN).locator('[data-record="TXT"]')
    assert.match(await txt.innerText(), new RegExp(verification.value))
    const copyValue = txt.getByRole('button', { name: 'Copy value' })
    await tabTo(desktop, copyValue, 80)
    await desktop.keyboard.press('Enter')
    await txt.locator('[aria-live="polite"]', { hasText: 'Copied' }).first().waitFor()
    assert.equal(await clipboard(desktop), verification.value)
    await txt.getByRole('button', { name: 'Copy name' }).click()
    await desktop.waitForFunction(`navigator.clipboard.readText().then((t) => t === ${JSON.stringify(verification.name)})`)
    assert.equal(verification.name, `_linkline.${DOMAIN}`)
  })

  test('Verify now: "not verified yet" and why while the record is missing; verified once it is published', async () => {
    const domain = card(desktop, DOMAIN)
    const outcome = domain.getByTestId('verify-outcome')
    await domain.getByRole('button', { name: `Verify ${DOMAIN} now` }).click()
    await outcome.getByText('Not verified yet').waitFor()
    assert.match(await outcome.innerText(), new RegExp(`no TXT record named _linkline\\.${DOMAIN.replace(/\./g, '\\.')} held the value above`))
    assert.match(await domain.innerText(), /pending verification/)
    await screenshot(desktop, 'domains-1440-not-yet')

    const { verification } = (await s.request('GET', `/v1/domains/${DOMAIN}`)).body.data as { verification: { name: string; value: string } }
    published.set(verification.name, [[verification.value]])
    await domain.getByRole('button', { name: `Verify ${DOMAIN} now` }).click()
    await domain.getByTestId('verify-outcome').getByText(`Verified: ${DOMAIN} now takes links and serves them.`).waitFor()
    assert.match(await domain.innerText(), /\bverified\b/)
    assert.doesNotMatch(await domain.innerText(), /pending verification/)
    assert.equal(await domain.getByRole('button', { name: `Verify ${DOMAIN} now` }).count(), 0, 'nothing left to verify')
    assert.equal((await s.request('GET', `/v1/domains/${DOMAIN}`)).body.data.status, 'verified')
    await screenshot(desktop, 'domains-1440-verified')
  })

  test('links are counted per domain, and the count leads to them', async () => {
    assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://example.com/', domain: DOMAIN, path: '/custom' } })).status, 201)
    await desktop.reload()
    await card(desktop, DOMAIN).waitFor()
    assert.equal(await card(desktop, s.host).getByTestId('link-count').innerText(), '3 links')
    assert.equal(await card(desktop, DOMAIN).getByTestId('link-count').innerText(), '1 link')
    await card(desktop, DOMAIN).getByRole('link', { name: '1 link' }).click()
    await desktop.waitForURL(`**/app/?domain=${DOMAIN}`)
    await desktop.getByRole('link', { name: `${DOMAIN}/custom` }).waitFor()
    assert.equal(await desktop.locator('tr[data-link]').count(), 1, 'only the links on that domain')
    await desktop.goBack()
    await card(desktop, DOMAIN).waitFor()
  })

  test('at 360 px: cards, no sideways scrolling, records and buttons fit', async () => {
    assert.equal((await s.request('POST', '/v1/domains', { json: { name: 'a-rather-long-subdomain-name.of-some-marketing-team.example' } })).status, 201)
    const page = await signedIn(PHONE)
    await page.goto('/app/domains')
    const pending = card(page, 'a-rather-long-subdomain-name.of-some-marketing-team.example')
    await pending.locator('[data-record="TXT"]').waitFor()
    await fitsTheScreen(page, '360 px')
    const width = await page.evaluate<number>('window.innerWidth')
    for (const copy of await pending.getByRole('button', { name: /^Copy / }).all()) {
      const box = await copy.boundingBox()
      assert.ok(box && box.x >= 0 && box.x + box.width <= width, 'every Copy button on the screen')
    }
    await screenshot(page, 'domains-360')
  })
})
