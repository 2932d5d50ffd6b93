import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { chromiumMissing, DESKTOP, startBrowsing, type Browsing } from '../../test/browser.js'
import { seedDemoWorkspace, signInAsDemoOwner } from '../../test/demo-workspace.js'

/** The demo workspace's 8 links and as many more: 200 in all. */
const LINKS = 200
const MORE = LINKS - 8

/**
 * What the links page costs to open over 200 links, by structure rather than by the clock (timings on
 * a shared machine say little; scripts/first-paint.mjs measures them, docs/performance.md has the
 * figures): one page of rows from one list request, no request per link, the entry script and
 * stylesheet only (the world map's chunk waits for a page that draws it).
 */
describe('the links page over 200 links, in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing

  before(async () => {
    s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    await seedDemoWorkspace(s, { moreLinks: MORE })
    b = await startBrowsing(s)
  })
  after(async () => {
    await b?.close()
    await s?.close()
  })

  test('opens on one page of rows, from one list request and the entry script alone', async () => {
    const page = await b.open(DESKTOP)
    await signInAsDemoOwner(page)
    const requests: string[] = []
    page.on('request', (r) => requests.push(new URL(r.url()).pathname + new URL(r.url()).search))
    await page.goto('/app/')
    await page.locator('tr[data-link]').first().waitFor()
    await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' })
    assert.equal(await page.locator('tr[data-link]').count(), 20, 'one page of rows')
    assert.equal(await page.locator('tr[data-link]').first().locator('td.short a').innerText(), 'go.nw.example/status', 'the newest first')
    const pages = page.getByRole('navigation', { name: 'Pages of links' })
    assert.equal(await pages.getByRole('button', { name: 'Older →' }).isEnabled(), true, 'more pages to come')

    const lists = requests.filter((r) => r.startsWith('/v1/links?'))
    assert.equal(lists.length, 1, `one list request: ${lists.join(', ')}`)
    assert.match(lists[0]!, /[?&]limit=20(&|$)/)
    assert.deepEqual(
      requests.filter((r) => /\/v1\/links\/lnk_/.test(r)),
      [],
      'no request per link',
    )
    const assets = requests.filter((r) => r.startsWith('/app/assets/')).map((r) => r.replace(/-[\w-]{8}\./, '.'))
    assert.deepEqual(assets.sort(), ['/app/assets/index.css', '/app/assets/index.js'])
    assert.deepEqual(b.problems, [])
  })
})
