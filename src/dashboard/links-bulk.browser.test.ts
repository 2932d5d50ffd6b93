import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, test } from 'node:test'
import type { BrowserContextOptions, Locator, Page } from 'playwright-core'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { chromiumMissing, DESKTOP, fitsTheScreen, PHONE, startBrowsing, type Browsing } from '../../test/browser.js'
import { tabTo as tabToOn } from '../../test/keyboard.js'
/** The filter's links: more than two pages of 20. One already carries 20 tags, so it cannot take another. */
const SPRING = 45
const AUTUMN = 6
const FULL_PATH = '/spring-full'

interface ApiLink {
  id: string
  path: string
  tags: string[]
}

/**
 * Bulk actions on the links list, in a real Chromium against the real server: a tag filter spanning
 * three pages, every matching link selected, a tag added to all (one link refuses: it has 20 already)
 * and removed again with the keyboard alone, the filter exported as CSV, then every matching link
 * deleted after a confirmation that names the count; and the screen fits 1440 and 360 px.
 */
describe('bulk actions on the links list in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing
  let page: Page

  before(async () => {
    s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    b = await startBrowsing(s)
    const fill = Array.from({ length: 19 }, (_, i) => `filler-${i}`)
    const links = [
      ...Array.from({ length: SPRING - 1 }, (_, i) => ({ destination: `https://shop.example/s${i}`, path: `/spring-${i}`, tags: ['spring'] })),
      { destination: 'https://shop.example/full', path: FULL_PATH, tags: ['spring', ...fill] },
      ...Array.from({ length: AUTUMN }, (_, i) => ({ destination: `https://shop.example/a${i}`, path: `/autumn-${i}`, tags: ['autumn'] })),
    ]
    const made = await s.request('POST', '/v1/links/bulk', { json: { links } })
    assert.equal(made.status, 200)
    assert.ok((made.body.data as { ok: boolean }[]).every((r) => r.ok))
  })
  after(async () => {
    await b?.close()
    await s?.close()
    assert.deepEqual(b.problems, [])
  })

  const signedIn = (options: BrowserContextOptions) => b.signedIn('admin', options)
  /** Every link of the workspace, through the API. */
  const everyLink = async (): Promise<ApiLink[]> => {
    const all: ApiLink[] = []
    for (let n = 1; ; n++) {
      const r = await s.request('GET', `/v1/links?limit=100&page=${n}`)
      all.push(...(r.body.data as ApiLink[]))
      if (!r.body.pagination.hasMore) return all
    }
  }
  /** Keyboard only: Tab (or Shift+Tab) until `target` has the focus. */
  const tabTo = (target: Locator, key = 'Tab') => tabToOn(target.page(), target, 80, key)
  const status = (at: Page) => at.locator('p.bulk-status[role="status"]')
  /** Filters the list by a tag as a person does, then selects the page and every other link the filter matches. */
  const selectEveryMatching = async (at: Page) => {
    await at.getByLabel('Filter by tag').fill('spring')
    await at.getByLabel('Filter by tag').press('Enter')
    await at.getByRole('navigation', { name: 'Pages of links' }).waitFor()
    await at.locator('tr[data-link]').nth(19).waitFor()
    await at.getByLabel('Select all on this page').check()
    await at.getByRole('button', { name: `Select all ${SPRING} links matching this filter` }).click()
    await at.getByText(`All ${SPRING} links matching this filter selected`).waitFor()
  }

  test('select every link a tag filter matches, across pages, and add a tag to each: the full one fails alone', async () => {
    page = await signedIn(DESKTOP)
    await selectEveryMatching(page)
    await page.getByLabel('Tag for the selected links').fill('extra')
    await page.getByRole('button', { name: 'Add tag', exact: true }).click()
    await status(page)
      .getByText(`Added “extra” to ${SPRING - 1} links; 1 failed:`)
      .waitFor()
    await page.locator('.bulk-failures li', { hasText: `${s.host}${FULL_PATH}` }).waitFor()
    await fitsTheScreen(page, '1440 px, after tagging')
    await page.screenshot({ path: '/tmp/links-bulk-desktop.png', fullPage: true })

    const links = await everyLink()
    for (const link of links) {
      const expected = link.tags.includes('spring') && link.path !== FULL_PATH
      assert.equal(link.tags.includes('extra'), expected, `${link.path}: ${link.tags.join(', ')}`)
    }
    assert.equal(links.filter((l) => l.tags.includes('extra')).length, SPRING - 1)
  })

  test('keyboard only: remove the tag from every selected link', async () => {
    // The focus is still on Add tag: the box is just before it.
    await tabTo(page.getByLabel('Tag for the selected links'), 'Shift+Tab')
    await page.keyboard.press('Control+A')
    await page.keyboard.type('extra')
    await tabTo(page.getByRole('button', { name: 'Remove tag', exact: true }))
    await page.keyboard.press('Enter')
    await status(page)
      .getByText(`Removed “extra” from ${SPRING - 1} links (1 did not have it).`)
      .waitFor()
    assert.deepEqual(
      (await everyLink()).filter((l) => l.tags.includes('extra')),
      [],
    )
  })

  test('export downloads a CSV of exactly the matching links', async () => {
    const download = page.waitForEvent('download')
    await page.getByRole('link', { name: `Export ${SPRING} links as CSV` }).click()
    const file = await (await download).path()
    const [header, ...rows] = (await readFile(file, 'utf8')).trim().split(/\r?\n/)
    assert.equal(header!.split(',')[0], 'id')
    const exported = rows.map((row) => row.split(',')[0]).sort()
    const matching = (await everyLink()).filter((l) => l.tags.includes('spring')).map((l) => l.id)
    assert.deepEqual(exported, matching.sort())
  })

  test('a 360 px screen: the selection and its actions fit', async () => {
    const narrow = await signedIn(PHONE)
    await selectEveryMatching(narrow)
    await fitsTheScreen(narrow, '360 px, every matching link selected')
    await narrow.screenshot({ path: '/tmp/links-bulk-narrow.png' })
  })

  test('delete every matching link, after a confirmation naming the count; the others stay', async () => {
    await page.getByRole('button', { name: `Delete ${SPRING} selected` }).click()
    await status(page).getByText(`Deleted ${SPRING} links.`).waitFor()
    assert.ok(
      b.dialogs.some((d) => d.startsWith(`Delete ${SPRING} links?`)),
      b.dialogs.join(' | '),
    )
    const left = await everyLink()
    assert.equal(left.length, AUTUMN)
    assert.ok(left.every((l) => l.tags.includes('autumn')))
    await page.getByText('No link matches this search.').waitFor()
  })
})
