import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { send } from '../../test/http-client.js'
import { chromiumMissing, field as fieldOf, screenshot as shoot, startBrowsing, type Browsing } from '../../test/browser.js'

const DESKTOP_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'

/**
 * The dashboard end to end: a real Chromium against the real server (the same buildApp and
 * container as production, on SQLite), serving the built assets from dist/web. It goes through
 * what a person does, by the labels a person reads.
 */
describe('the dashboard in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing
  let page: Page
  /** A destination page on 127.0.0.1 that answers (its title) only once the test releases it. */
  let destination: Server
  const held: (() => void)[] = []

  before(async () => {
    destination = createServer((_, res) => held.push(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Autumn collection</title>')))
    await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve))
    s = await startTestServer({
      env: { LINKLINE_CLICK_FLUSH_INTERVAL_MS: '50', LINKLINE_DOMAIN_VERIFICATION: 'off', LINKLINE_FETCH_ALLOW_PRIVATE: 'true' },
    })
    b = await startBrowsing(s)
    // The dashboard's origin is the server's default domain (localhost:<port>), where the cookie lives.
    page = await b.open()
  })
  after(async () => {
    await b?.close()
    await s?.close()
    destination?.closeAllConnections()
    destination?.close()
  })

  const field = (name: string) => fieldOf(page, name)
  const screenshot = (name: string) => shoot(page, name)

  test('sign in: a wrong token is refused at the field; the right one shows who is signed in, and no token is kept in storage', async () => {
    const response = await page.goto('/app/')
    assert.equal(response?.status(), 200)
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/)
    // The API token is the operators' way in, behind "Use an API token".
    await page.getByText('Use an API token').click()
    assert.match(await field('token').innerText(), /npx linkline tokens create --owner default/, 'the hint names the bootstrap workspace')
    await page.getByLabel('API token').fill('ll_not_a_token')
    await page.getByRole('button', { name: 'Sign in with token' }).click()
    await field('token').locator('.field-error').waitFor()
    assert.match(await field('token').locator('.field-error').innerText(), /unknown or revoked/)

    await page.getByLabel('API token').fill(s.token)
    await page.getByRole('button', { name: 'Sign in with token' }).click()
    await page.getByTestId('who').waitFor()
    assert.match(await page.getByTestId('who').innerText(), /API token/)
    assert.match((await page.getByTestId('role').textContent()) ?? '', /owner in alice/)
    // Evaluated in the page (this file is compiled without the DOM's types, hence strings).
    const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie')
    assert.ok(!stored.includes(s.token), 'the token is in no storage a script can read')
    const cookie = (await page.context().cookies()).find((c) => c.name === 'linkline_session')
    assert.ok(cookie?.httpOnly && cookie.sameSite === 'Strict')
  })

  test('the new-link form: focus in it, Esc closes it, one default domain, options folded, every field error at once', async () => {
    await page.getByRole('button', { name: 'New link' }).click()
    assert.equal(await page.evaluate("document.activeElement?.getAttribute('name')"), 'destination')
    const domains = (await field('domain').locator('option').allInnerTexts()).map((o) => o.replace(' (default)', ''))
    assert.deepEqual(domains, [...new Set(domains)], 'each domain once')
    assert.match((await field('domain').locator('option').first().innerText()) ?? '', /\(default\)$/)
    assert.equal(await page.getByLabel('Click limit').isVisible(), false, 'the controls are folded away')
    await page.keyboard.press('Escape')
    await page.locator('form.link-form').waitFor({ state: 'detached' })

    await page.getByRole('button', { name: 'New link' }).click()
    await page.getByLabel('Destination').fill('ftp://files.example/report')
    await page.getByLabel('Path').fill('bad path!')
    await page.getByText(/^More options/).click()
    await page.getByLabel('When expired, go to').fill('http://')
    await page.getByRole('button', { name: 'Create link' }).click()
    for (const name of ['destination', 'path', 'expiredUrl']) await field(name).locator('.field-error').waitFor()
    assert.equal(await page.evaluate("document.activeElement?.getAttribute('name')"), 'destination', 'focus on the first field at fault')
    await page.getByRole('button', { name: 'Cancel' }).click()
  })

  test('links: create, an API error shown by its field, edit, copy, delete with confirmation', async () => {
    await page.getByRole('button', { name: 'New link' }).click()
    // Without a scheme: https:// is meant.
    await page.getByLabel('Destination').fill('shop.example/summer')
    await page.getByLabel('Path').fill('/promo')
    await page.getByLabel('Title').fill('Summer sale')
    await page.getByRole('button', { name: 'Create link' }).click()
    const row = page.locator('tr', { hasText: `${s.host}/promo` })
    await row.waitFor()
    assert.match(await row.innerText(), /Summer sale/)
    assert.equal((await s.request('GET', `/v1/links/${await row.getAttribute('data-link')}`)).body.data.destination, 'https://shop.example/summer')

    // The same path again: the API's 409 names `path`, and the form shows it there.
    await page.getByRole('button', { name: 'New link' }).click()
    await page.getByLabel('Destination').fill('https://shop.example/other')
    await page.getByLabel('Path').fill('/promo')
    await page.getByRole('button', { name: 'Create link' }).click()
    await field('path').locator('.field-error').waitFor()
    assert.match(await field('path').locator('.field-error').innerText(), /already taken/)
    await page.getByLabel('Path').fill('')
    await page.getByLabel('Destination').fill('javascript:alert(1)')
    await page.getByRole('button', { name: 'Create link' }).click()
    await field('destination').locator('.field-error').waitFor()
    assert.match(await field('destination').locator('.field-error').innerText(), /absolute http or https URL/)
    assert.equal(await field('path').locator('.field-error').count(), 0, 'the earlier error left with its field')
    await page.getByRole('button', { name: 'Cancel' }).click()

    await row.getByRole('button', { name: 'Edit' }).click()
    await page.getByLabel('Title').fill('Winter sale')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await page.locator('tr', { hasText: 'Winter sale' }).waitFor()
    const id = await row.getAttribute('data-link')
    assert.equal((await s.request('GET', `/v1/links/${id}`)).body.data.title, 'Winter sale')

    await row.getByRole('button', { name: 'Copy' }).click()
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), `http://${s.host}/promo`)

    const doomed = await s.request('POST', '/v1/links', { json: { destination: 'https://example.com/doomed', path: '/doomed' } })
    await page.reload()
    const doomedRow = page.locator('tr', { hasText: `${s.host}/doomed` })
    await doomedRow.getByRole('button', { name: 'Delete' }).click()
    await doomedRow.waitFor({ state: 'detached' })
    assert.equal((await s.request('GET', `/v1/links/${doomed.body.data.id}`)).status, 404)

    // Several at once: one bulk-delete request.
    const ids: string[] = []
    for (const path of ['/bulk-a', '/bulk-b'])
      ids.push((await s.request('POST', '/v1/links', { json: { destination: 'https://example.com/bulk', path } })).body.data.id)
    await page.reload()
    for (const path of ['/bulk-a', '/bulk-b']) await page.getByLabel(`Select http://${s.host}${path}`).check()
    const bulk = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/v1/links/bulk-delete'))
    await page.getByRole('button', { name: 'Delete 2 selected' }).click()
    assert.deepEqual((await bulk).postDataJSON(), { ids })
    await page.locator('tr', { hasText: `${s.host}/bulk-a` }).waitFor({ state: 'detached' })
    for (const id of ids) assert.equal((await s.request('GET', `/v1/links/${id}`)).status, 404)
    assert.ok(await row.isVisible())
  })

  test("a link created without a title shows its page's title once fetched, without a reload", async () => {
    await page.getByRole('button', { name: 'New link' }).click()
    await page.getByLabel('Destination').fill(`http://127.0.0.1:${(destination.address() as AddressInfo).port}/autumn`)
    await page.getByLabel('Path').fill('/untitled')
    await page.getByRole('button', { name: 'Create link' }).click()
    const row = page.locator('tr', { hasText: `${s.host}/untitled` })
    await row.waitFor()
    // Listed before the page has answered: no title yet.
    assert.doesNotMatch(await row.innerText(), /Autumn collection/)
    for (let i = 0; i < 200 && held.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    held.shift()?.()
    await row.locator('td.title', { hasText: 'Autumn collection' }).waitFor()
  })

  test('link controls: tags, a click limit (its 400 at the field) and a password; the tag filter; removing the password', async () => {
    await page.getByRole('button', { name: 'New link' }).click()
    await page.getByLabel('Destination').fill('https://shop.example/spring')
    await page.getByLabel('Path').fill('/tagged')
    await page.getByLabel('Tags').fill('spring, print ')
    await page.getByText(/^More options/).click()
    await field('maxClicks').locator('input').fill('0')
    await field('password').locator('input').fill('open sesame')
    await page.getByRole('button', { name: 'Create link' }).click()
    await field('maxClicks').locator('.field-error').waitFor()
    assert.match(await field('maxClicks').locator('.field-error').innerText(), /maxClicks must be at least 1/)
    await field('maxClicks').locator('input').fill('5')
    await screenshot('link-form')
    await page.getByRole('button', { name: 'Create link' }).click()
    const row = page.locator('tr', { hasText: `${s.host}/tagged` })
    await row.waitFor()
    assert.deepEqual(await row.locator('td.title .tag').allInnerTexts(), ['print', 'spring'])
    assert.equal(await row.locator('[data-marker="password"]').count(), 1)
    assert.equal(await row.locator('[data-marker="max-clicks"]').innerText(), 'max 5')
    const id = await row.getAttribute('data-link')
    const saved = (await s.request('GET', `/v1/links/${id}`)).body.data
    assert.deepEqual([saved.tags, saved.maxClicks, saved.hasPassword, saved.redirectType], [['print', 'spring'], 5, true, 302])
    await screenshot('links-table')

    const promo = page.locator('tr', { hasText: `${s.host}/promo` })
    await page.getByLabel('Filter by tag').fill('spring')
    await page.getByLabel('Filter by tag').press('Enter')
    await promo.waitFor({ state: 'detached' })
    assert.ok(await row.isVisible())
    await page.getByRole('button', { name: /Clear tag/ }).click()
    await promo.waitFor()
    // A tag chip filters too.
    await row.getByRole('button', { name: 'print', exact: true }).click()
    await promo.waitFor({ state: 'detached' })
    await page.getByRole('button', { name: /Clear tag/ }).click()
    await promo.waitFor()

    await row.getByRole('button', { name: 'Edit' }).click()
    assert.equal(await page.getByLabel('Tags').inputValue(), 'print, spring')
    assert.equal(await field('password').locator('input').inputValue(), '', 'the password is never shown')
    await page.getByLabel(/Remove the password/).check()
    await screenshot('link-form-edit')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await row.locator('[data-marker="password"]').waitFor({ state: 'detached' })
    const edited = (await s.request('GET', `/v1/links/${id}`)).body.data
    assert.deepEqual([edited.hasPassword, edited.tags, edited.maxClicks], [false, ['print', 'spring'], 5])

    // An expiry (local time in the form, ISO UTC in the API), a redirect type and an expired URL; then emptied: null.
    await row.getByRole('button', { name: 'Edit' }).click()
    await page.getByLabel('Expires at').fill('2030-01-02T03:04')
    await page.getByLabel('Redirect').selectOption('301')
    await page.getByLabel('When expired, go to').fill('https://shop.example/ended')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await row.locator('[data-marker="expiry"]').waitFor()
    const expected = await page.evaluate<string>("new Date('2030-01-02T03:04').toISOString()")
    const limited = (await s.request('GET', `/v1/links/${id}`)).body.data
    assert.deepEqual(
      [limited.expiresAt, limited.redirectType, limited.expiredUrl, limited.tags],
      [expected, 301, 'https://shop.example/ended', ['print', 'spring']],
    )
    await row.getByRole('button', { name: 'Edit' }).click()
    assert.equal(await page.getByLabel('Expires at').inputValue(), '2030-01-02T03:04')
    await page.getByLabel('Expires at').fill('')
    await field('maxClicks').locator('input').fill('')
    await page.getByLabel('When expired, go to').fill('')
    await page.getByLabel('Tags').fill('')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await row.locator('[data-marker="expiry"]').waitFor({ state: 'detached' })
    const cleared = (await s.request('GET', `/v1/links/${id}`)).body.data
    assert.deepEqual([cleared.expiresAt, cleared.maxClicks, cleared.expiredUrl, cleared.tags, cleared.redirectType], [null, null, null, [], 301])
  })

  test('social preview: folded, its card mock follows the fields, a bad image at its field, then saved and cleared', async () => {
    await page.getByRole('button', { name: 'New link' }).click()
    await page.getByLabel('Destination').fill('https://shop.example/card')
    await page.getByLabel('Path').fill('/carded')
    await page.getByLabel('Title', { exact: true }).fill('Link title')
    const section = page.locator('details.social-preview')
    assert.equal(await section.getAttribute('open'), null, 'folded for a new link')
    await section.locator('summary').click()
    const card = page.getByRole('figure', { name: 'How the card will look' })
    assert.equal(await card.locator('.preview-title').innerText(), 'Link title', 'the link title until the card has its own')
    await page.getByLabel('Headline').fill('Card <b>title</b>')
    await page.getByLabel('Card text').fill('Half off')
    await page.getByLabel('Card image').fill('http://cdn.example/card.png')
    assert.equal(await card.locator('.preview-title').innerText(), 'Card <b>title</b>')
    assert.equal(await card.locator('.preview-description').innerText(), 'Half off')
    assert.match((await card.getByRole('img').getAttribute('aria-label')) ?? '', /cdn\.example/)
    await page.getByRole('button', { name: 'Create link' }).click()
    await field('preview[image]').locator('.field-error').waitFor()
    assert.match(await field('preview[image]').locator('.field-error').innerText(), /https URL/)
    await page.getByLabel('Card image').fill('https://cdn.example/card.png')
    await screenshot('link-form-preview')
    await page.getByRole('button', { name: 'Create link' }).click()
    const row = page.locator('tr', { hasText: `${s.host}/carded` })
    await row.waitFor()
    const id = await row.getAttribute('data-link')
    assert.deepEqual((await s.request('GET', `/v1/links/${id}`)).body.data.preview, {
      title: 'Card <b>title</b>',
      description: 'Half off',
      image: 'https://cdn.example/card.png',
    })
    await row.getByRole('button', { name: 'Edit' }).click()
    assert.notEqual(await section.getAttribute('open'), null, 'unfolded for a link with a preview')
    for (const label of ['Headline', 'Card text', 'Card image']) await page.getByLabel(label).fill('')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await section.waitFor({ state: 'detached' })
    assert.equal((await s.request('GET', `/v1/links/${id}`)).body.data.preview, null)
  })

  test("a link's page: the QR code follows its settings, and a click shows in the statistics after Refresh", async () => {
    await page
      .locator('tr', { hasText: `${s.host}/promo` })
      .getByRole('link', { name: `${s.host}/promo` })
      .click()
    await page.getByRole('heading', { name: 'Winter sale' }).waitFor()
    const qr = page.locator('.qr-preview img')
    await qr.waitFor()
    const loaded =
      "(() => { const img = document.querySelector('.qr-preview img'); return img !== null && img.complete && img.naturalWidth > 0 && img.src.startsWith('blob:') })()"
    await page.waitForFunction(loaded)
    await page.getByLabel('Format').selectOption('svg')
    await page.locator('.qr-preview img[data-format="svg"]').waitFor()
    await page.waitForFunction(loaded)
    await page.getByLabel('Size (px)').fill('10')
    await field('size').locator('.field-error').waitFor()
    assert.match(await field('size').locator('.field-error').innerText(), /size must be at least 64/i)
    await page.getByLabel('Size (px)').fill('256')
    await field('size').locator('.field-error').waitFor({ state: 'detached' })
    assert.match((await page.getByRole('link', { name: 'Download SVG' }).getAttribute('href')) ?? '', /format=svg.*download=1|download=1.*format=svg/)

    const humans = page.locator('[data-total="Human clicks"] .value')
    assert.equal(await humans.innerText(), '0')
    const visit = await send(s.url, 'GET', '/promo?qr=1', { headers: { host: s.host, 'user-agent': DESKTOP_CHROME, referer: 'https://news.example/post' } })
    assert.equal(visit.status, 302)
    // The click is written by the background flusher: press Refresh until it shows.
    for (let i = 0; i < 50 && (await humans.innerText()) !== '1'; i++) {
      await page.getByTestId('refresh').click()
      await page.waitForTimeout(200)
    }
    assert.equal(await humans.innerText(), '1')
    assert.equal(await page.locator('[data-total="QR scans"] .value').innerText(), '1')
    await page.locator('.chart canvas').waitFor()
    assert.match(await page.locator('[data-breakdown="Referrers"]').innerText(), /news\.example/)
  })

  test('conversations: open one, read and send messages, pin one', async () => {
    const conversation = await s.request('POST', '/v1/conversations', { json: { contact_id: 'c_42' } })
    await s.request('POST', `/v1/conversations/${conversation.body.id}/messages`, { json: { text: 'Hello from the poster', direction: 'inbound' } })
    await page.getByRole('link', { name: 'Conversations' }).click()
    await page.getByRole('link', { name: /Contact c_42/ }).click()
    await page.locator('.message', { hasText: 'Hello from the poster' }).waitFor()
    assert.notEqual((await s.request('GET', `/v1/conversations/${conversation.body.id}`)).body.last_opened_at, null, 'opening it marked it opened')
    await page.getByLabel('Message').fill('Thanks, we will call you back')
    await page.getByRole('button', { name: 'Send' }).click()
    await page.locator('.message.outbound', { hasText: 'Thanks, we will call you back' }).waitFor()
    await page.locator('.message', { hasText: 'Hello from the poster' }).getByRole('button', { name: 'Pin' }).click()
    await page.locator('.message.pinned', { hasText: 'Hello from the poster' }).waitFor()
    await page.getByRole('button', { name: 'Archive' }).click()
    await page.getByRole('button', { name: 'Restore' }).waitFor()
    const saved = (await s.request('GET', `/v1/conversations/${conversation.body.id}`)).body
    assert.notEqual(saved.archived_at, null)
    assert.ok(saved.pinned_message_id)
  })

  test('tokens: create one with fewer scopes and a lifetime (shown once), see when it was used and expires, then revoke it', async () => {
    await page.getByRole('link', { name: 'Tokens' }).click()
    await page.getByLabel('Name').fill('reporting')
    await page.getByLabel('Expires').selectOption({ label: '30 days' })
    for (const scope of ['links:write', 'conversations:read', 'conversations:write', 'domains:write', 'tokens:write'])
      await page.getByLabel(scope, { exact: true }).uncheck()
    await page.getByRole('button', { name: 'Create token' }).click()
    const secret = await page.getByTestId('new-token').locator('code').innerText()
    assert.match(secret, /^ll_/)
    const made = await send(s.url, 'GET', '/v1/links', { token: secret, headers: { host: s.host } })
    assert.equal(made.status, 200)
    assert.equal(
      (await send(s.url, 'POST', '/v1/links', { token: secret, json: { destination: 'https://example.com' }, headers: { host: s.host } })).status,
      403,
    )
    const listed = (await s.request('GET', '/v1/tokens')).body.data.find((t: { name: string }) => t.name === 'reporting')
    const days = (Date.parse(listed.expiresAt) - Date.now()) / 86_400_000
    assert.ok(days > 29.9 && days <= 30, `expires in 30 days, not ${days}`)
    await page.reload()
    const row = page.locator('tr', { hasText: 'reporting' })
    assert.match(await row.innerText(), /links:read, domains:read/)
    const cells = await row.locator('td').allInnerTexts()
    assert.notEqual(cells[4], 'never', 'used once, by the request above')
    assert.notEqual(cells[5], 'never', 'it expires')
    await row.getByRole('button', { name: 'Revoke' }).click()
    await row.waitFor({ state: 'detached' })
    assert.equal((await send(s.url, 'GET', '/v1/links', { token: secret, headers: { host: s.host } })).status, 401)
  })

  test('domains: add one, and removing one that links use explains the 409', async () => {
    await page.getByRole('link', { name: 'Domains' }).click()
    await page.getByLabel('Domain name').fill('not a domain')
    await page.getByRole('button', { name: 'Add domain' }).click()
    await field('name').locator('.field-error').waitFor()
    await page.getByLabel('Domain name').fill('go.acme.example')
    await page.getByRole('button', { name: 'Add domain' }).click()
    const row = page.locator('li[data-domain="go.acme.example"]')
    await row.waitFor()
    assert.match(await row.innerText(), /verified/)
    const link = await s.request('POST', '/v1/links', { json: { destination: 'https://example.com/on-domain', domain: 'go.acme.example' } })
    await row.getByRole('button', { name: 'Remove' }).click()
    await page.getByRole('alert').filter({ hasText: 'cannot be removed while links still use it' }).waitFor()
    assert.ok(await row.isVisible())
    await s.request('DELETE', `/v1/links/${link.body.data.id}`)
    await row.getByRole('button', { name: 'Remove' }).click()
    await row.waitFor({ state: 'detached' })
  })

  test('signing out ends the session; the page asks to sign in again', async () => {
    const cookie = (await page.context().cookies()).find((c) => c.name === 'linkline_session')
    await page.getByTestId('who').click()
    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    await page.getByLabel('Email').waitFor()
    await page.reload()
    await page.getByLabel('Email').waitFor()
    assert.equal((await s.request('GET', '/v1/me', { token: null, headers: { cookie: `linkline_session=${cookie?.value}` } })).status, 401)
    assert.deepEqual(b.problems, [])
  })
})
