import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { button, chromiumMissing, DESKTOP, field, fitsTheScreen, PHONE, screenshot, startBrowsing, type Browsing } from '../../test/browser.js'
import { focusReaches, press, tabTo } from '../../test/keyboard.js'
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'
const WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const COUNTRY_HEADER = 'x-test-country'

/**
 * The link page and the link form end to end, in a real Chromium against the real server: a link
 * with a rule made with the keyboard alone, which the redirect then follows; Edit, Duplicate and
 * Delete on the link page, which shows every setting in words; the UTM fields writing the URL's
 * query; the API's rule errors at their rule; and no sideways scrolling on a desktop or a phone.
 */
describe('the link page and the link form in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing

  before(async () => {
    s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'off', LINKLINE_COUNTRY_HEADER: COUNTRY_HEADER } })
    b = await startBrowsing(s)
  })
  after(async () => {
    await b?.close()
    await s?.close()
    assert.deepEqual(b.problems, [])
  })

  const rule = (page: Page, n: number) => page.locator('ol.rules > li').nth(n - 1)
  const linkNamed = async (path: string) => (await s.request('GET', `/v1/links?query[path]=${encodeURIComponent(path)}`)).body.data[0]
  const create = async (body: Record<string, unknown>) => {
    const made = await s.request('POST', '/v1/links', { json: body })
    assert.equal(made.status, 201, made.text)
    return made.body.data as { id: string; shortUrl: string; path: string }
  }
  /** Where the short URL sends this visitor: the redirect's Location, asked from here as a phone or a PC would. */
  const redirectOf = async (shortUrl: string, headers: Record<string, string>) => {
    const response = await fetch(shortUrl, { redirect: 'manual', headers })
    assert.equal(response.status, 302)
    return response.headers.get('location')
  }

  test('keyboard only: a new link with a rule for iPhones, which the redirect then follows', async () => {
    const page = await b.signedIn('member', DESKTOP)
    await press(page, button(page, 'New link'))
    const destination = page.locator('input[name="destination"]')
    await focusReaches(destination)
    await page.keyboard.type('shop.example/app')
    await tabTo(page, page.locator('input[name="path"]'), 120)
    await page.keyboard.type('get-the-app')
    await press(page, page.locator('details.more-options summary'))
    // A new rule takes the focus: its first condition.
    await press(page, button(page, 'Add a rule'))
    const iphone = rule(page, 1).getByRole('checkbox', { name: 'iPhone/iPad' })
    await focusReaches(iphone)
    await page.keyboard.press(' ')
    assert.ok(await iphone.isChecked())
    await tabTo(page, rule(page, 1).getByLabel('Send them to'), 120)
    await page.keyboard.type('apps.apple.com/app/linkline')
    await screenshot(page, 'link-editor-1440-new-rule')
    await page.keyboard.press('Enter')

    await page.locator('tr', { hasText: `${s.host}/get-the-app` }).waitFor()
    const saved = await linkNamed('/get-the-app')
    assert.deepEqual(saved.rules, [{ when: { device: ['ios'] }, destination: 'https://apps.apple.com/app/linkline' }])
    assert.equal(await redirectOf(saved.shortUrl, { 'user-agent': IPHONE }), 'https://apps.apple.com/app/linkline')
    assert.equal(await redirectOf(saved.shortUrl, { 'user-agent': WINDOWS }), 'https://shop.example/app')
  })

  test('the link page shows every setting in words; Edit sends only what changed, and the page shows it', async () => {
    const link = await create({
      destination: 'https://shop.example/edit',
      path: '/edit-me',
      title: 'Before',
      tags: ['print'],
      maxClicks: 100,
      password: 'open sesame',
      expiredUrl: 'https://shop.example/ended',
      preview: { title: 'Card headline' },
    })
    const page = await b.signedIn('member', DESKTOP)
    await page.goto(`/app/links/${link.id}`)
    await page.getByRole('heading', { name: 'Before', level: 1 }).waitFor()
    const settings = page.getByTestId('link-settings')
    const setting = (name: string) => settings.locator(`[data-setting="${name}"] dd`)
    assert.equal(await setting('Redirect').innerText(), '302 Found')
    assert.equal(await setting('Expires').innerText(), 'Never')
    assert.equal(await setting('Click limit').innerText(), '100 human visits')
    assert.equal(await setting('When expired').innerText(), 'https://shop.example/ended')
    assert.match(await setting('Password').innerText(), /^Yes/)
    assert.equal(await setting('Tags').innerText(), 'print')
    assert.equal(await setting('Social preview').innerText(), 'Card headline')
    assert.match(await setting('Rules').innerText(), /^None/)

    await press(page, button(page, 'Edit'))
    const title = page.getByLabel('Title', { exact: true })
    await focusReaches(page.locator('input[name="destination"]'))
    assert.equal(await page.locator('details.more-options').getAttribute('open'), '', 'unfolded: the link uses its options')
    assert.equal(await field(page, 'password').locator('input').inputValue(), '', 'the password is never shown')
    await title.fill('After')
    await button(page, 'Add a rule').click()
    await rule(page, 1).getByRole('checkbox', { name: 'iPhone/iPad' }).check()
    await rule(page, 1).getByLabel('Countries').fill('de')
    await rule(page, 1).getByLabel('Send them to').fill('https://shop.example/de-ios')
    await button(page, 'Add a rule').click()
    await rule(page, 2).getByLabel('Languages').fill('fr')
    await rule(page, 2).getByLabel('Send them to').fill('shop.example/fr')
    // The French rule first: it moves up, and the focus stays with it.
    await page.getByRole('button', { name: 'Move rule 2 up' }).click()
    await focusReaches(rule(page, 1).locator('[data-move="down"]'))
    assert.equal(await rule(page, 1).getByLabel('Languages').inputValue(), 'fr')
    await screenshot(page, 'link-editor-1440-edit')
    const patch = page.waitForRequest((r) => r.method() === 'PATCH')
    await button(page, 'Save changes').click()
    const sent = (await patch).postDataJSON()
    assert.deepEqual(Object.keys(sent).sort(), ['rules', 'title'], 'only what changed; the password left as it was')

    await page.getByRole('heading', { name: 'After', level: 1 }).waitFor()
    await page.locator('form.link-form').waitFor({ state: 'detached' })
    await focusReaches(button(page, 'Edit'))
    assert.deepEqual(await settings.getByTestId('rules').locator('li').allInnerTexts(), [
      'Visitors speaking fr → https://shop.example/fr',
      'iPhone/iPad users in DE → https://shop.example/de-ios',
    ])
    const saved = (await s.request('GET', `/v1/links/${link.id}`)).body.data
    assert.equal(saved.hasPassword, true)
    const guarded = await fetch(saved.shortUrl, { redirect: 'manual', headers: { 'user-agent': IPHONE, [COUNTRY_HEADER]: 'DE' } })
    assert.equal(guarded.status, 200, 'the password form still comes first')
    await screenshot(page, 'link-editor-1440-page')

    // Removing the password, and a rule; the one left goes on working.
    await button(page, 'Edit').click()
    await page.getByLabel(/Remove the password/).check()
    await page.getByRole('button', { name: 'Remove rule 1' }).click()
    assert.equal(await page.locator('ol.rules > li').count(), 1)
    await button(page, 'Save changes').click()
    await settings.locator('[data-setting="Password"] dd', { hasText: 'No' }).waitFor()
    assert.deepEqual(await settings.getByTestId('rules').locator('li').allInnerTexts(), ['iPhone/iPad users in DE → https://shop.example/de-ios'])
    assert.equal(await redirectOf(saved.shortUrl, { 'user-agent': IPHONE, [COUNTRY_HEADER]: 'DE' }), 'https://shop.example/de-ios')
    assert.equal(await redirectOf(saved.shortUrl, { 'user-agent': IPHONE, [COUNTRY_HEADER]: 'AT' }), 'https://shop.example/edit')
  })

  test('Duplicate opens the new-link form with everything but the path and the password', async () => {
    const original = await create({
      destination: 'https://shop.example/original',
      path: '/original',
      title: 'The original',
      tags: ['a', 'b'],
      redirectType: 301,
      password: 'open sesame',
      rules: [{ when: { device: ['android'] }, destination: 'https://play.example/app' }],
      preview: { title: 'Card', description: 'Text' },
    })
    const page = await b.signedIn('member', DESKTOP)
    await page.goto(`/app/links/${original.id}`)
    await press(page, button(page, 'Duplicate'))
    await page.getByRole('heading', { name: 'Duplicate link' }).waitFor()
    assert.equal(await page.locator('input[name="destination"]').inputValue(), 'https://shop.example/original')
    assert.equal(await page.locator('input[name="path"]').inputValue(), '', 'a new path: empty for a random one')
    assert.equal(await page.getByLabel('Tags').inputValue(), 'a, b')
    assert.equal(await field(page, 'password').locator('input').inputValue(), '')
    assert.equal(await page.getByLabel(/Remove the password/).count(), 0)
    assert.equal(await rule(page, 1).getByLabel('Send them to').inputValue(), 'https://play.example/app')
    await page.locator('input[name="path"]').fill('copy')
    await button(page, 'Create link').click()
    // The form opened on the original's address: wait until the copy's page replaces it.
    await page.waitForURL((url) => /^\/app\/links\/lnk_/.test(url.pathname) && url.pathname !== `/app/links/${original.id}`)
    await page.getByRole('heading', { name: 'The original', level: 1 }).waitFor()
    const copy = await linkNamed('/copy')
    const was = (await s.request('GET', `/v1/links/${original.id}`)).body.data
    for (const key of ['destination', 'title', 'tags', 'redirectType', 'rules', 'preview', 'domain']) assert.deepEqual(copy[key], was[key], key)
    assert.equal(copy.hasPassword, false)
    assert.equal(new URL(page.url()).pathname, `/app/links/${copy.id}`)
    await page.getByText(`${s.host}/copy`).first().waitFor()
  })

  test('Delete asks first, then goes back to the list', async () => {
    const doomed = await create({ destination: 'https://shop.example/doomed', path: '/doomed' })
    const page = await b.signedIn('member', DESKTOP)
    await page.goto(`/app/links/${doomed.id}`)
    await press(page, button(page, 'Delete'))
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor()
    assert.equal(new URL(page.url()).pathname, '/app/')
    assert.match(b.dialogs.at(-1) ?? '', new RegExp(`Delete http://${s.host}/doomed\\?`))
    assert.equal((await s.request('GET', `/v1/links/${doomed.id}`)).status, 404)
  })

  test('the UTM fields write the query of the URL, and read it back when editing', async () => {
    const page = await b.signedIn('member', DESKTOP)
    await button(page, 'New link').click()
    const destination = page.locator('input[name="destination"]')
    await destination.fill('shop.example/summer?ref=qr')
    await page.getByText(/^More options/).click()
    await page.getByLabel('Source (utm_source)').fill('newsletter')
    await page.getByLabel('Medium (utm_medium)').fill('email')
    await page.getByLabel('Campaign (utm_campaign)').fill('summer sale')
    assert.equal(await destination.inputValue(), 'https://shop.example/summer?ref=qr&utm_source=newsletter&utm_medium=email&utm_campaign=summer+sale')
    await page.locator('input[name="path"]').fill('utm')
    await button(page, 'Create link').click()
    const row = page.locator('tr', { hasText: `${s.host}/utm` })
    await row.waitFor()
    const made = await linkNamed('/utm')
    assert.equal(made.destination, 'https://shop.example/summer?ref=qr&utm_source=newsletter&utm_medium=email&utm_campaign=summer+sale')

    await row.getByRole('button', { name: 'Edit' }).click()
    assert.equal(await page.locator('details.more-options').getAttribute('open'), '', 'unfolded: the URL has UTM parameters')
    assert.equal(await page.getByLabel('Campaign (utm_campaign)').inputValue(), 'summer sale')
    await page.getByLabel('Medium (utm_medium)').fill('')
    assert.equal(await destination.inputValue(), 'https://shop.example/summer?ref=qr&utm_source=newsletter&utm_campaign=summer+sale')
    await button(page, 'Save changes').click()
    await page.locator('form.link-form').waitFor({ state: 'detached' })
    assert.equal((await linkNamed('/utm')).destination, 'https://shop.example/summer?ref=qr&utm_source=newsletter&utm_campaign=summer+sale')
  })

  test("a rule's errors show at its rule: a missing URL before sending, the API's at the field it names", async () => {
    const page = await b.signedIn('member', DESKTOP)
    await button(page, 'New link').click()
    await page.locator('input[name="destination"]').fill('https://shop.example/rules')
    await page.locator('input[name="path"]').fill('ruled')
    await page.getByText(/^More options/).click()
    await button(page, 'Add a rule').click()
    await rule(page, 1).getByLabel('Countries').fill('DE')
    await rule(page, 1).getByLabel('Send them to').fill('https://shop.example/de')
    await button(page, 'Add a rule').click()
    await rule(page, 2).getByLabel('Countries').fill('Germany')
    await button(page, 'Create link').click()
    // Before sending: rule 2 has no URL.
    const missing = field(rule(page, 2), 'rules[1][destination]').locator('.field-error')
    await missing.waitFor()
    assert.match(await missing.innerText(), /required/)
    await focusReaches(rule(page, 2).getByLabel('Send them to'))

    // The API's: a country that is no ISO code, named rules[1][when][country][0], at rule 2's countries.
    await rule(page, 2).getByLabel('Send them to').fill('https://shop.example/elsewhere')
    await button(page, 'Create link').click()
    const country = field(rule(page, 2), 'rules[1][when][country]').locator('.field-error')
    await country.waitFor()
    assert.match(await country.innerText(), /two-letter ISO 3166-1 code/)
    assert.equal(await rule(page, 1).locator('.field-error').count(), 0, 'rule 1 is fine')
    assert.equal(await page.locator('form.link-form > .error').count(), 0, 'not repeated below the form')
    await focusReaches(rule(page, 2).getByLabel('Countries'))
    await screenshot(page, 'link-editor-1440-rule-error')

    // A rule URL that leads back to the link itself: only the API knows, and says so at that rule.
    await rule(page, 2).getByLabel('Countries').fill('AT')
    await rule(page, 2).getByLabel('Send them to').fill(`http://${s.host}/ruled`)
    await button(page, 'Create link').click()
    const loop = field(rule(page, 2), 'rules[1][destination]').locator('.field-error')
    await loop.waitFor()
    assert.match(await loop.innerText(), /rules\[1\]\[destination\]/)
    assert.equal(await linkNamed('/ruled'), undefined)
  })

  test('no sideways scrolling at 1440 × 900 and 360 × 780: the link page, and the form with its rules', async () => {
    const link = await create({
      destination: 'https://shop.example/a/very/long/path/that/goes/on/and/on?utm_source=newsletter&utm_medium=email&utm_campaign=summer',
      path: '/wide',
      title: 'A link with everything',
      tags: ['summer', 'print', 'newsletter'],
      expiresAt: '2031-01-01T00:00:00.000Z',
      maxClicks: 1000,
      rules: [
        {
          when: { device: ['ios', 'tablet'], country: ['DE', 'AT', 'CH'] },
          destination: 'https://apps.apple.com/de/app/linkline-with-a-long-name/id1234567890',
        },
        { when: { language: ['fr'] }, destination: 'https://shop.example/fr' },
      ],
    })
    for (const [options, width] of [
      [DESKTOP, 1440],
      [PHONE, 360],
    ] as const) {
      const page = await b.signedIn('member', options)
      await page.goto(`/app/links/${link.id}`)
      await page.getByTestId('rules').waitFor()
      await fitsTheScreen(page, `the link page at ${width}`)
      await screenshot(page, `link-editor-${width}-page-wide`)
      await button(page, 'Edit').click()
      await rule(page, 2).waitFor()
      await fitsTheScreen(page, `the form at ${width}`)
      await screenshot(page, `link-editor-${width}-form`)
    }
  })

  test('a viewer reads the settings and is offered no Edit, Duplicate or Delete', async () => {
    const link = await create({ destination: 'https://shop.example/read', path: '/read-only', rules: [{ when: {}, destination: 'https://shop.example/all' }] })
    const page = await b.signedIn('viewer', DESKTOP)
    await page.goto(`/app/links/${link.id}`)
    // allInnerTexts does not wait: the page draws the settings once the link has come.
    await page.getByTestId('rules').waitFor()
    assert.deepEqual(await page.getByTestId('rules').locator('li').allInnerTexts(), ['Every visit → https://shop.example/all'])
    for (const name of ['Edit', 'Duplicate', 'Delete']) assert.equal(await button(page, name).count(), 0, `no ${name} button`)
  })
})
