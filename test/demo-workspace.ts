import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'
import { signIn } from './browser.js'
import type { TestServer } from './build-test-app.js'
import { visit } from './factories.js'

export const DEMO_EMAIL = 'olga@northwind.example'
export const DEMO_PASSWORD = 'correct horse battery'

/** Links a small shop's marketing team might keep: path, destination, title, tags, and clicks over the last 30 days. */
const LINKS: { path: string; destination: string; title: string | null; tags: string[]; clicks: number }[] = [
  {
    path: '/spring-sale',
    destination: 'https://shop.northwind.example/collections/garden?utm_source=newsletter&utm_medium=email&utm_campaign=spring-sale',
    title: 'Spring sale: garden furniture and outdoor lights up to 40% off',
    tags: ['campaign', 'newsletter'],
    clicks: 140,
  },
  {
    path: '/webinar',
    destination: 'https://events.northwind.example/webinars/measuring-campaigns-without-cookies',
    title: 'Webinar: measuring campaigns without cookies',
    tags: ['events'],
    clicks: 64,
  },
  { path: '/catalogue', destination: 'https://northwind.example/files/catalogue-2026.pdf', title: 'Catalogue 2026 (PDF)', tags: ['print'], clicks: 45 },
  { path: '/ios', destination: 'https://apps.apple.example/app/northwind-shop/id1234567890', title: 'Northwind Shop for iPhone', tags: ['app'], clicks: 31 },
  { path: '/careers', destination: 'https://jobs.northwind.example/engineering', title: 'We are hiring: engineering', tags: ['hiring'], clicks: 22 },
  { path: '/feedback', destination: 'https://forms.example.com/northwind/customer-survey', title: 'Customer survey', tags: [], clicks: 12 },
  { path: '/store-hours', destination: 'https://northwind.example/stores/berlin-mitte', title: 'Berlin Mitte: opening hours', tags: ['print'], clicks: 6 },
  { path: '/status', destination: 'https://status.northwind.example/', title: null, tags: [], clicks: 0 },
]
/** Where visitors come from, with how often: countries, browsers, referrers. */
const VISITORS: { country: string; userAgent: string; referer?: string }[] = [
  { country: 'DE', userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36' },
  {
    country: 'DE',
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    referer: 'https://www.instagram.com/',
  },
  {
    country: 'FR',
    userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
    referer: 'https://news.ycombinator.com/',
  },
  { country: 'US', userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', referer: 'https://www.linkedin.com/' },
  { country: 'NL', userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36' },
  { country: 'AT', userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0' },
  {
    country: 'GB',
    userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    referer: 'https://t.co/',
  },
]
const DAY = 86_400_000

export interface DemoWorkspace {
  /** Each link's id by its path. */
  ids: Record<string, string>
  /** A link whose statistics are public. */
  publicLinkId: string
  /** A pending invitation's one-time address (its path under the server). */
  invitationPath: string
}

/**
 * A workspace that looks lived in, for the dashboard's screenshots, accessibility checks and
 * measurements: an owner who signs in with DEMO_EMAIL, a colleague, a pending invitation, an API
 * token, a domain of its own (the server needs LINKLINE_DOMAIN_VERIFICATION=off), links with titles,
 * tags and a month of clicks from a few countries; `moreLinks` adds that many plain links below them.
 */
export async function seedDemoWorkspace(s: TestServer, { moreLinks = 0 } = {}): Promise<DemoWorkspace> {
  const olga = await s.container.accounts.createUser({ email: DEMO_EMAIL, name: 'Olga Berg', password: DEMO_PASSWORD })
  await s.container.accounts.join(olga.id, 'alice', 'owner')
  const ravi = await s.container.accounts.createUser({ email: 'ravi@northwind.example', name: 'Ravi Menon' })
  await s.container.accounts.join(ravi.id, 'alice', 'member')
  const created = async (path: string, json: object) => {
    const answer = await s.request('POST', path, { json })
    assert.equal(answer.status, 201, answer.text)
    return answer.body.data
  }
  const invitation = await created('/v1/invitations', { email: 'jonas@northwind.example', role: 'viewer' })
  await created('/v1/tokens', { name: 'Newsletter tool', scopes: ['links:read', 'links:write'] })
  // The links are on it: their short URLs look as they would in use, and do not change with the test server's port.
  const domain = (await created('/v1/domains', { name: 'go.nw.example' })).name

  const ids: Record<string, string> = {}
  for (let i = 0; i < moreLinks; i++) {
    ids[`/offer-${i + 1}`] = (
      await created('/v1/links', { destination: `https://shop.northwind.example/offers/${i + 1}`, path: `/offer-${i + 1}`, title: `Offer ${i + 1}` })
    ).id
  }
  // The demo links last: the newest first in the list.
  for (const { path, destination, title, tags } of LINKS) {
    ids[path] = (await created('/v1/links', { domain, destination, path, title, tags, publicStats: path === '/webinar' })).id
  }
  let n = 0
  for (const { path, clicks } of LINKS) {
    for (let i = 0; i < clicks; i++, n++) {
      const who = VISITORS[(n * 7 + i) % VISITORS.length]!
      // More clicks lately, with a weekly rhythm.
      const daysAgo = Math.floor(30 * (i / clicks) ** 2) + (i % 7 === 0 ? 1 : 0)
      s.container.clicks.record(
        visit(ids[path]!, Date.now() - daysAgo * DAY - (i % 24) * 3_600_000, {
          ip: `203.0.113.${(n % 250) + 1}`,
          userAgent: who.userAgent,
          referer: who.referer,
          country: who.country,
          qr: i % 5 === 0,
        }),
      )
    }
  }
  await s.container.clicks.flush()
  return { ids, publicLinkId: ids['/webinar']!, invitationPath: new URL(invitation.url).pathname }
}

/** Signs in as the demo workspace's owner on the dashboard's sign-in page. */
export const signInAsDemoOwner = (page: Page): Promise<void> => signIn(page, DEMO_EMAIL, DEMO_PASSWORD)
