import { readFileSync } from 'node:fs'
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { BrowserContextOptions, Page } from 'playwright-core'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { visit } from '../../test/factories.js'
import {
  chromiumMissing,
  fitsTheScreen,
  screenshot as shoot,
  SCREENS,
  sections,
  settled,
  signIn,
  startBrowsing,
  titleIs,
  type Browsing,
} from '../../test/browser.js'
import { isFocused, tabTo } from '../../test/keyboard.js'

/**
 * Every section of the navigation (web/src/shell.tsx NAV), the tab's title it gives and its heading;
 * Links last: the dashboard opens on it, and only a new page moves the focus.
 */
const SECTIONS = [
  { label: 'Broken destinations', heading: 'Links' },
  { label: 'Analytics', heading: 'Analytics' },
  { label: 'Conversations', heading: 'Conversations' },
  { label: 'Domains', heading: 'Domains' },
  { label: 'Webhooks', heading: 'Webhooks' },
  { label: 'Import & export', heading: 'Import & export' },
  { label: 'Tokens', heading: 'API tokens' },
  { label: 'Members', heading: 'Members' },
  { label: 'Audit log', heading: 'Audit log' },
  { label: 'Links', heading: 'Links' },
]
const LONG_DESTINATION = `https://shop.example/catalogue/2026/spring-summer/collections/outdoor?utm_source=newsletter&utm_campaign=${'x'.repeat(60)}`

/**
 * The dashboard's frame in a real Chromium against the real server, on a desktop and on a 360 px
 * phone: every section fits the screen, names itself in the tab's title and gives its heading the
 * focus; the skip link; the phone's Menu by keyboard; the links list across a wide screen and as
 * cards on a phone; the frame shown while a slow server answers who is signed in.
 * With DASHBOARD_SCREENSHOTS=<dir>, pictures of every screen there.
 */
describe('the dashboard layout in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing
  let spring = ''

  before(async () => {
    s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    // The chart names its zone: one zone for every profile.
    b = await startBrowsing(s, { timezoneId: 'UTC' })
    await b.person('owner', { email: 'olga@example.com', name: 'Olga' })
    for (const [path, destination, title, tags] of [
      ['/spring', LONG_DESTINATION, 'Spring and summer collection: outdoor furniture, garden lights and everything for the terrace', ['season', 'print']],
      ['/autumn', 'https://shop.example/autumn', 'Autumn catalogue', []],
      ['/quiet', 'https://example.com/', null, []],
    ] as const) {
      const made = await s.request('POST', '/v1/links', { json: { destination, path, title, tags } })
      assert.equal(made.status, 201, made.text)
      if (path === '/spring') spring = made.body.data.id
    }
    // A few clicks, so that Analytics draws its chart.
    for (let i = 0; i < 3; i++) s.container.clicks.record(visit(spring, Date.now() - i * 86_400_000))
    await s.container.clicks.flush()
  })
  after(async () => {
    await b?.close()
    await s?.close()
    assert.deepEqual(b.problems, [])
  })

  const open = (options: BrowserContextOptions) => b.open(options)
  const signedIn = async (options: BrowserContextOptions) => {
    const page = await open(options)
    await signIn(page, 'olga@example.com')
    return page
  }
  const menu = (page: Page) => sections(page).getByRole('button', { name: 'Menu', exact: true })
  const focused = (page: Page) => page.locator(':focus')
  const screenshot = (page: Page, name: string) => shoot(page, `layout-${name}`)
  const slug = (label: string) => label.toLowerCase().replace(/ /g, '-')

  for (const screen of SCREENS) {
    test(`${screen.name} px: every section fits the screen, has its own title, and its heading takes the focus`, async () => {
      const page = await signedIn(screen.options)
      await titleIs(page, 'Links · Linkline')
      const titles = new Set<string>()
      for (const { label, heading } of SECTIONS) {
        if (screen.phone) {
          assert.equal(await sections(page).getByRole('link', { name: label, exact: true }).isVisible(), false, 'the sections wait behind Menu')
          await menu(page).click()
        }
        await sections(page).getByRole('link', { name: label, exact: true }).click()
        await titleIs(page, `${label} · Linkline`)
        titles.add(await page.title())
        const h1 = page.getByRole('heading', { level: 1, name: heading, exact: true })
        await h1.and(focused(page)).waitFor()
        assert.equal(await h1.getAttribute('tabindex'), '-1')
        if (screen.phone) assert.equal(await menu(page).getAttribute('aria-expanded'), 'false', 'a chosen section closes the menu')
        await settled(page)
        if (label === 'Analytics') assert.match(await page.getByTestId('chart-value').innerText(), /days in UTC/, 'the chart names its zone')
        if (label === 'Audit log') {
          // A resource's type is one word on one line: an inline element split over lines has a box per line.
          const lines = await page.evaluate<number[]>(
            "[...document.querySelectorAll('.audit-resource .resource-type')].map((el) => el.getClientRects().length)",
          )
          assert.ok(lines.length > 0 && lines.every((n) => n === 1), `lines per resource type: ${lines.join(', ')}`)
        }
        await fitsTheScreen(page, label)
        await screenshot(page, `${screen.name}-${slug(label)}`)
      }
      assert.equal(titles.size, SECTIONS.length, [...titles].join(', '))

      // A link's own page: its heading comes with its data, and takes the focus then.
      await page.locator(`tr[data-link="${spring}"] td.short a`).click()
      await titleIs(page, 'Link · Linkline')
      await page.getByRole('heading', { level: 1 }).and(focused(page)).waitFor()
      await settled(page)
      await fitsTheScreen(page, 'a link')
      await screenshot(page, `${screen.name}-link`)
    })

    test(`${screen.name} px: the skip link is the first Tab stop and takes the focus to the page`, async () => {
      const page = await signedIn(screen.options)
      await page.reload()
      await page.getByRole('heading', { level: 1, name: 'Links' }).waitFor()
      await page.keyboard.press('Tab')
      const skip = page.getByRole('link', { name: 'Skip to content' })
      assert.ok(await isFocused(skip), 'the first Tab stop')
      const box = (await skip.boundingBox())!
      assert.ok(box.y >= 0 && box.x >= 0, `visible once focused: ${JSON.stringify(box)}`)
      await page.keyboard.press('Enter')
      await page.locator('main#main').and(focused(page)).waitFor()
      // And Tab goes on into the page, not back to the header.
      await page.keyboard.press('Tab')
      assert.equal(await page.evaluate<boolean>("document.querySelector('main').contains(document.activeElement)"), true)
    })
  }

  for (const screen of SCREENS) {
    test(`${screen.name} px: the pages outside the frame fit the screen and name themselves too`, async () => {
      const invitation = await s.request('POST', '/v1/invitations', { json: { email: `guest-${screen.name}@example.com`, role: 'viewer' } })
      assert.equal(invitation.status, 201)
      assert.equal((await s.request('PATCH', `/v1/links/${spring}`, { json: { publicStats: true } })).status, 200)
      const page = await open(screen.options)
      for (const [path, title] of [
        ['/app/', 'Sign in · Linkline'],
        [`/app/public/${spring}`, 'Link statistics · Linkline'],
        [new URL(invitation.body.data.url).pathname, 'You are invited · Linkline'],
        ['/app/reset/not-a-reset-secret', 'Choose a new password · Linkline'],
      ] as const) {
        await page.goto(path)
        await page.getByRole('heading', { level: 1 }).first().waitFor()
        await titleIs(page, title)
        await settled(page)
        await fitsTheScreen(page, title)
      }
      // Signing out ends on the sign-in page under its own title, not under the last section's.
      await signIn(page, 'olga@example.com')
      await titleIs(page, 'Links · Linkline')
      await page.getByTestId('who').click()
      await page.getByRole('button', { name: 'Sign out', exact: true }).click()
      await page.getByLabel('Email').waitFor()
      await titleIs(page, 'Sign in · Linkline')
    })
  }

  test('360 px: the Menu opens and closes by keyboard, and opens a section', async () => {
    const page = await signedIn(SCREENS[1]!.options)
    const toggle = menu(page)
    const domains = sections(page).getByRole('link', { name: 'Domains', exact: true })
    const { height } = (await page.locator('header.topbar').boundingBox())!
    assert.ok(height <= 60, `a compact header: ${height} px`)
    await tabTo(page, toggle, 40)
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false')
    assert.equal(await domains.isVisible(), false)
    await page.keyboard.press('Enter')
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true')
    await domains.waitFor()
    await screenshot(page, '360-menu')
    await fitsTheScreen(page, 'the open menu')
    // Esc closes it, the focus back on Menu.
    await page.keyboard.press('Tab')
    assert.equal(await page.evaluate<boolean>("document.querySelector('#sections-list').contains(document.activeElement)"), true, 'Tab enters the menu')
    await page.keyboard.press('Escape')
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false')
    await domains.waitFor({ state: 'hidden' })
    assert.ok(await isFocused(toggle))
    // Space opens it, Enter closes it; then open again and go to a section with the keyboard.
    await page.keyboard.press(' ')
    await domains.waitFor()
    await page.keyboard.press('Enter')
    await domains.waitFor({ state: 'hidden' })
    await page.keyboard.press('Enter')
    await tabTo(page, domains, 40)
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1, name: 'Domains' }).and(focused(page)).waitFor()
    await domains.waitFor({ state: 'hidden' })
    await titleIs(page, 'Domains · Linkline')
  })

  test('1440 px: the links list uses the width, shows long destinations and titles on one line each, rows are dense', async () => {
    const page = await signedIn(SCREENS[0]!.options)
    const row = page.locator(`tr[data-link="${spring}"]`)
    await row.waitFor()
    const table = (await page.locator('table.links').boundingBox())!
    assert.ok(table.width >= 1380, `the table is ${table.width} px wide on a 1440 px screen`)
    const destination = row.locator('td.destination')
    assert.equal(await destination.locator('.ellipsis').getAttribute('title'), LONG_DESTINATION, 'the whole address on hover')
    const destinationBox = (await destination.boundingBox())!
    assert.ok(destinationBox.width >= 380, `destination column: ${destinationBox.width} px`)
    const titleBox = (await row.locator('td.title').boundingBox())!
    assert.ok(titleBox.width >= 220, `title column: ${titleBox.width} px`)
    // A link without tags nor markers takes one line.
    const plain = (await page.locator('tr[data-link]', { hasText: 'Autumn catalogue' }).boundingBox())!
    assert.ok(plain.height <= 44, `a row is ${plain.height} px high`)
    assert.equal(await page.locator('table.links th.row-actions').textContent(), 'Actions')
    await screenshot(page, '1440-links')
  })

  test('360 px: a link is a compact card with everything visible', async () => {
    const page = await signedIn(SCREENS[1]!.options)
    const card = page.locator(`tr[data-link="${spring}"]`)
    await card.waitFor()
    const box = (await card.boundingBox())!
    assert.ok(box.height <= 200, `a card is ${box.height} px high`)
    for (const part of [
      card.locator('td.short a'),
      card.locator('td.title'),
      card.locator('td.destination'),
      card.locator('td.num'),
      card.getByRole('button', { name: 'Edit' }),
      card.getByRole('button', { name: 'Delete' }),
    ]) {
      const at = (await part.boundingBox())!
      assert.ok(at.x >= box.x && at.x + at.width <= box.x + box.width + 0.5, `${part.toString()} inside its card`)
    }
    await fitsTheScreen(page, 'the links')
  })

  test('a slow server: the frame shows while the session loads, then the page', async () => {
    const page = await open(SCREENS[1]!.options)
    let answer: () => void = () => {}
    const held = new Promise<void>((resolve) => (answer = resolve))
    await page.route('**/v1/me', async (route) => {
      await held
      await route.continue()
    })
    await page.goto('/app/')
    const frame = page.locator('.shell[aria-busy="true"]')
    await frame.locator('header.topbar .brand').waitFor()
    assert.match(await frame.locator('main').innerText(), /Loading your session/)
    await fitsTheScreen(page, 'the frame')
    await screenshot(page, '360-loading')
    answer()
    await page.getByLabel('Email').waitFor()
    assert.equal(await frame.count(), 0)
  })

  test("a link's page downloads its recorded visits", async () => {
    const page = await signedIn(SCREENS[0]!.options)
    await page.goto(`/app/links/${spring}`)
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('visits-csv').click()])
    const rows = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split(/\r?\n/)
    assert.equal(rows.length, 1 + 3, rows.join('\n'))
    assert.match(rows[0]!, /^time,/)
  })

  test("a slow server: a link's statistics are asked for with the link, not after it", async () => {
    const page = await signedIn(SCREENS[0]!.options)
    let answer: () => void = () => {}
    const held = new Promise<void>((resolve) => (answer = resolve))
    await page.route(`**/v1/links/${spring}`, async (route) => {
      await held
      await route.continue()
    })
    const statistics = page.waitForRequest((request) => new URL(request.url()).pathname === `/v1/links/${spring}/stats`)
    await page.goto(`/app/links/${spring}`)
    // The link's own answer is held back: its statistics are on their way all the same.
    await statistics
    const title = page.getByRole('heading', { level: 1, name: /^Spring and summer collection/ })
    assert.equal(await title.count(), 0)
    answer()
    await title.waitFor()
    await settled(page)
  })
})
