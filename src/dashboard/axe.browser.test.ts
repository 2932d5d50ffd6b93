import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import axe from 'axe-core'
import type { BrowserContextOptions, Page } from 'playwright-core'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { chromiumMissing, SCREENS, settled, startBrowsing, type Browsing } from '../../test/browser.js'
import { seedDemoWorkspace, signInAsDemoOwner, type DemoWorkspace } from '../../test/demo-workspace.js'

const SCHEMES = ['light', 'dark'] as const
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
/** Every section of the navigation (web/src/shell.tsx NAV) by its address, and its heading. */
const SECTIONS = [
  { path: '/app/', heading: 'Links' },
  { path: '/app/?health=broken', heading: 'Links' },
  { path: '/app/analytics', heading: 'Analytics' },
  { path: '/app/conversations', heading: 'Conversations' },
  { path: '/app/domains', heading: 'Domains' },
  { path: '/app/webhooks', heading: 'Webhooks' },
  { path: '/app/import', heading: 'Import & export' },
  { path: '/app/tokens', heading: 'API tokens' },
  { path: '/app/members', heading: 'Members' },
  { path: '/app/audit', heading: 'Audit log' },
]
/** What blocks: axe's two worst impacts. Moderate and minor findings are only shown alongside. */
const BLOCKING = new Set(['serious', 'critical'])

interface Finding {
  id: string
  impact: string
  help: string
  nodes: string[]
}

/**
 * The dashboard's screens checked by axe-core in a real Chromium against the real server, on a
 * desktop and on a 360 px phone, in the light and the dark colour scheme: the sign-in page, a public
 * statistics page, an invitation, every section (Domains with its missing paths), a new invitation's
 * link, the account menu (and a phone's Menu), a link's own page and the link form. No serious or
 * critical violation is allowed; the moderate and minor ones are listed in the failure message.
 */
describe('the dashboard against axe-core, in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing
  let demo: DemoWorkspace

  before(async () => {
    s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    demo = await seedDemoWorkspace(s)
    // Visits to paths no link answers on the demo's domain: the Domains page shows them in a table.
    for (const path of ['/spring-sael', '/spring-sael', '/catalog'])
      assert.equal((await s.request('GET', path, { token: null, headers: { host: 'go.nw.example', 'user-agent': CHROME } })).status, 404)
    await s.container.missingPaths.flush()
    b = await startBrowsing(s, { timezoneId: 'UTC' })
  })
  after(async () => {
    await b?.close()
    await s?.close()
    assert.deepEqual(b.problems, [])
  })

  /**
   * axe's violations on the page as it is now, in the shape the failure message prints. axe comes in
   * through the DevTools protocol, which the page's CSP does not govern: page.addScriptTag adds an
   * inline script, which script-src 'self' refuses, and a context with bypassCSP would check a page
   * that runs under no policy at all.
   */
  const violations = async (page: Page): Promise<Finding[]> => {
    await page.evaluate(axe.source)
    const results = await page.evaluate<axe.AxeResults>("axe.run(document, { resultTypes: ['violations'] })")
    return results.violations.map((v) => ({ id: v.id, impact: v.impact ?? 'minor', help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }))
  }

  const open = (options: BrowserContextOptions) => b.open(options)

  test('axe runs in the page and reports what it finds: a button without a name is critical', async () => {
    const page = await open(SCREENS[0]!.options)
    await page.goto('/app/')
    await page.getByLabel('Email').waitFor()
    assert.deepEqual(await violations(page), [])
    await page.evaluate("document.querySelector('main').append(document.createElement('button'))")
    assert.deepEqual(
      (await violations(page)).map((v) => `${v.impact} ${v.id}`),
      ['critical button-name'],
    )
  })

  for (const screen of SCREENS) {
    for (const colorScheme of SCHEMES) {
      test(`${screen.name} px, ${colorScheme}: no serious or critical violation on any screen`, async () => {
        const page = await open({ colorScheme, ...screen.options })
        const found = new Map<string, Finding[]>()
        const check = async (where: string) => {
          await settled(page)
          found.set(where, await violations(page))
        }
        await page.goto(`/app/public/${demo.publicLinkId}`)
        await page.getByRole('heading', { level: 1 }).waitFor()
        await check('public statistics')
        await page.goto(demo.invitationPath)
        await page.getByRole('heading', { level: 1 }).waitFor()
        await check('an invitation')
        await page.goto('/app/')
        await page.getByLabel('Email').waitFor()
        await check('sign-in')
        await signInAsDemoOwner(page)
        for (const { path, heading } of SECTIONS) {
          await page.goto(path)
          await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor()
          if (path === '/app/domains') await page.locator('tr[data-missing]').first().waitFor()
          await check(path)
        }
        // A new invitation's one-time link, which takes the focus.
        await page.goto('/app/members')
        await page.locator('form.invite').getByLabel('Email').fill(`new-${screen.name}-${colorScheme}@northwind.example`)
        await page.getByRole('button', { name: 'Invite', exact: true }).click()
        await page.getByTestId('new-invitation').waitFor()
        await check('a new invitation')
        await page.getByTestId('who').click()
        await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor()
        await check('the account menu')
        await page.keyboard.press('Escape')
        const menu = page.getByRole('button', { name: 'Menu', exact: true })
        if (await menu.isVisible()) {
          await menu.click()
          await check('the open menu')
          await page.keyboard.press('Escape')
        }
        await page.goto(`/app/links/${demo.ids['/spring-sale']}`)
        await page.getByRole('heading', { level: 1 }).waitFor()
        await check('a link')
        await page.goto('/app/')
        await page.getByRole('button', { name: 'New link', exact: true }).click()
        await page.getByLabel('Destination').first().waitFor()
        await check('the link form')
        const blocking = [...found].flatMap(([where, list]) => list.filter((v) => BLOCKING.has(v.impact)).map((v) => ({ where, ...v })))
        const report = [...found].flatMap(([where, list]) => list.map((v) => `${where}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.slice(0, 3).join(', ')}`))
        assert.deepEqual(
          blocking.map((v) => `${v.where}: ${v.id}`),
          [],
          `axe on ${screen.name} px, ${colorScheme}:\n  ${report.join('\n  ')}`,
        )
      })
    }
  }
})
