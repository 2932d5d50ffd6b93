import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page } from 'playwright-core'
import type { Role } from '../src/accounts/roles.js'
import type { TestServer } from './build-test-app.js'

/**
 * What every browser test shares: Debian's Chromium, a browser profile per person on the test
 * server's default domain that records what its pages report, signing in, and the checks each screen
 * is held to (nothing wider than the screen, the tab's title). Keyboard steps are in keyboard.ts.
 */

/** Debian's chromium (`apt-get install chromium`); playwright-core downloads no browser of its own. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Why the browser tests cannot run here (a `skip` reason), or false; in CI, where every backend is required, a missing browser fails. */
export const chromiumMissing = existsSync(CHROMIUM) ? false : `needs Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`
if (chromiumMissing && process.env.LINKLINE_TEST_REQUIRE_ALL_BACKENDS === '1') throw new Error(chromiumMissing)

/** The password of everyone the tests sign in as. */
export const PASSWORD = 'correct horse battery'

export const DESKTOP: BrowserContextOptions = { viewport: { width: 1440, height: 900 } }
export const PHONE: BrowserContextOptions = { viewport: { width: 360, height: 780 }, isMobile: true, hasTouch: true }
/** The two screens every dashboard screen is held to: a desktop and a small phone. */
export const SCREENS: { name: string; phone: boolean; options: BrowserContextOptions }[] = [
  { name: '1440', phone: false, options: DESKTOP },
  { name: '360', phone: true, options: PHONE },
]

/** Headless, unsandboxed (containers), without the background traffic a test has no use for. */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-default-apps', '--no-first-run'],
  })

export interface Browsing {
  readonly browser: Browser
  /** What the pages reported: script errors, CSP refusals (answers of 4xx the page expects are not counted). */
  readonly problems: string[]
  /** The confirmation dialogs the pages opened, each accepted. */
  readonly dialogs: string[]
  /** A fresh browser profile (its own cookies) on the server's default domain, clipboard allowed. */
  open(options?: BrowserContextOptions): Promise<Page>
  /** A person of `role` in `workspace`: a new account with PASSWORD. */
  person(role: Role, who?: { email?: string; name?: string; workspace?: string }): Promise<{ id: string; email: string }>
  /** A new person of `role` in alice's workspace, signed in on a fresh page. */
  signedIn(role: Role, options?: BrowserContextOptions): Promise<Page>
  close(): Promise<void>
}

/** Chromium for the tests of one server; `defaults` go into every profile it opens. */
export async function startBrowsing(s: TestServer, defaults: BrowserContextOptions = {}): Promise<Browsing> {
  const browser = await launchChromium()
  const contexts: BrowserContext[] = []
  const problems: string[] = []
  const dialogs: string[] = []
  let people = 0
  const open = async (options: BrowserContextOptions = {}) => {
    const context = await browser.newContext({ baseURL: `http://${s.host}`, permissions: ['clipboard-read', 'clipboard-write'], ...defaults, ...options })
    contexts.push(context)
    const page = await context.newPage()
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
    page.on('console', (m) => m.type() === 'error' && !/status of 4\d\d/.test(m.text()) && problems.push(m.text()))
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.accept()
    })
    return page
  }
  const person: Browsing['person'] = async (role, who = {}) => {
    const email = who.email ?? `${role}-${++people}@example.com`
    const user = await s.container.accounts.createUser({ email, name: who.name ?? `A ${role}`, password: PASSWORD })
    await s.container.accounts.join(user.id, who.workspace ?? 'alice', role)
    return { id: user.id, email }
  }
  return {
    browser,
    problems,
    dialogs,
    open,
    person,
    async signedIn(role, options) {
      const { email } = await person(role)
      const page = await open(options)
      await signIn(page, email)
      return page
    },
    async close() {
      for (const context of contexts) await context.close()
      await browser.close()
    },
  }
}

/** Signs in on the dashboard's sign-in page with an email and a password, sent with Enter. */
export async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto('/app/')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByLabel('Password').press('Enter')
  await page.getByTestId('who').waitFor()
}

/** Nothing wider than the screen: no sideways scrolling. */
export async function fitsTheScreen(page: Page, where: string): Promise<void> {
  const [content, screen] = await page.evaluate<[number, number]>('[document.documentElement.scrollWidth, window.innerWidth]')
  assert.ok(content <= screen, `${where}: ${content} px of content on a ${screen} px screen`)
}

/** Until nothing on the page is loading any more (a page's data, statistics, the world map). */
export const settled = (page: Page) => page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' })

/** The tab's title, once the page has set it (the page's CSP allows no waitForFunction). */
export async function titleIs(page: Page, title: string): Promise<void> {
  for (let i = 0; i < 100 && (await page.title()) !== title; i++) await page.waitForTimeout(50)
  assert.equal(await page.title(), title)
}

/** With DASHBOARD_SCREENSHOTS=<dir>, a picture of the whole page there, to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.DASHBOARD_SCREENSHOTS
  if (!dir) return
  mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true })
}

export const button = (scope: Page | Locator, name: string) => scope.getByRole('button', { name, exact: true })
/** A labelled control of the dashboard's forms (ui.tsx Field), by its name. */
export const field = (scope: Page | Locator, name: string) => scope.locator(`[data-field="${name}"]`)
/** The navigation's sections. */
export const sections = (page: Page) => page.getByRole('navigation', { name: 'Sections' })

/** A section's link in the navigation; on a phone the sections wait behind Menu, opened first. */
export async function section(page: Page, name: string): Promise<Locator> {
  const menu = sections(page).getByRole('button', { name: 'Menu', exact: true })
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) === 'false') await menu.click()
  return sections(page).getByRole('link', { name, exact: true })
}

/** A request from the page itself, with its session cookie and its origin, as the dashboard's own code sends it: its status. */
export const fetchInPage = (page: Page, method: string, path: string, body?: unknown) =>
  page.evaluate<number, [string, string, string | undefined]>(
    ([m, p, b]) => fetch(p, { method: m, headers: b === undefined ? {} : { 'content-type': 'application/json' }, body: b }).then((r) => r.status),
    [method, path, body === undefined ? undefined : JSON.stringify(body)],
  )
