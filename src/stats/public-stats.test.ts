import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { CHROME, insertLink } from '../../test/factories.js'

for (const backend of backends) {
  describe(`public statistics (${backend})`, () => {
    let s: TestServer
    let bob: string
    before(async () => {
      s = await startTestServer({ backend, env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
      bob = await s.createToken('bob')
    })
    after(() => s.close())

    const createLink = async (fields: Record<string, unknown>, token = s.token) => {
      const r = await s.request('POST', '/v1/links', { json: { destination: 'https://dest.example/page', ...fields }, token })
      assert.equal(r.status, 201, r.text)
      return r.body.data as { id: string; path: string; publicStats: boolean }
    }
    const visit = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
      s.request(method, path, { token: null, headers: { 'user-agent': CHROME, ...headers } })
    const publicStats = (id: string, query = '', options: { token?: string | null; headers?: Record<string, string> } = {}) =>
      s.request('GET', `/v1/public/links/${id}/stats${query}`, { token: null, ...options })

    test('publicStats is false unless set; create, bulk create, PATCH and PUT set it; every link object carries it', async () => {
      const plain = await createLink({ path: '/ps-plain' })
      assert.equal(plain.publicStats, false)
      const open = await createLink({ path: '/ps-open', publicStats: true })
      assert.equal(open.publicStats, true)
      const form = await s.request('POST', '/v1/links', { form: { destination: 'https://dest.example/', path: '/ps-form', publicStats: 'true' } })
      assert.equal(form.status, 201, form.text)
      assert.equal(form.body.data.publicStats, true)
      const bulk = await s.request('POST', '/v1/links/bulk', {
        json: { links: [{ destination: 'https://dest.example/', publicStats: true }, { destination: 'https://dest.example/' }] },
      })
      assert.equal(bulk.status, 200, bulk.text)
      assert.deepEqual(
        bulk.body.data.map((r: { link: { publicStats: boolean } }) => r.link.publicStats),
        [true, false],
      )

      const patched = await s.request('PATCH', `/v1/links/${plain.id}`, { json: { publicStats: true } })
      assert.equal(patched.status, 200, patched.text)
      assert.equal(patched.body.data.publicStats, true)
      assert.equal((await s.request('GET', `/v1/links/${plain.id}`)).body.data.publicStats, true)
      // Another field alone leaves it as it is.
      assert.equal((await s.request('PATCH', `/v1/links/${plain.id}`, { json: { title: 'T' } })).body.data.publicStats, true)
      const unset = await s.request('PUT', `/v1/links/${plain.id}`, { form: { publicStats: 'false' } })
      assert.equal(unset.body.data.publicStats, false)
      const listed = await s.request('GET', '/v1/links?limit=100')
      const byId = new Map(listed.body.data.map((l: { id: string; publicStats: boolean }) => [l.id, l.publicStats]))
      assert.equal(byId.get(plain.id), false)
      assert.equal(byId.get(open.id), true)

      const wrong = await s.request('PATCH', `/v1/links/${plain.id}`, { json: { publicStats: 'yes' } })
      assert.equal(wrong.status, 400)
      assert.equal(wrong.body.error.param, 'publicStats')
    })

    test('changing publicStats is in the audit log', async () => {
      const link = await createLink({ path: '/ps-audited' })
      assert.equal((await s.request('PATCH', `/v1/links/${link.id}`, { json: { publicStats: true } })).status, 200)
      const log = await s.request('GET', '/v1/audit-log?action=link.updated')
      assert.equal(log.status, 200, log.text)
      assert.ok(log.body.data.some((e: { resourceId: string }) => e.resourceId === link.id))
    })

    test("a public link's statistics need no credentials: the owner's shape, referrers without the rest", async () => {
      const link = await createLink({ path: '/ps-stats', publicStats: true })
      // Twelve referrer hosts, host i visited 13 - i times: the top ten, and two beyond them.
      for (let i = 1; i <= 12; i++) {
        for (let n = 0; n < 13 - i; n++) assert.equal((await visit('/ps-stats', { referer: `https://r${String(i).padStart(2, '0')}.example/` })).status, 302)
      }
      await s.container.clicks.flush()

      const own = await s.request('GET', `/v1/links/${link.id}/stats`)
      assert.equal(own.status, 200)
      const open = await publicStats(link.id)
      assert.equal(open.status, 200, open.text)
      assert.equal(open.headers['cache-control'], 'public, max-age=15')
      const { referrers, ...rest } = open.body.data
      const { referrers: ownReferrers, ...ownRest } = own.body.data
      assert.deepEqual(rest, ownRest)
      assert.equal(ownReferrers.length, 11)
      assert.deepEqual(ownReferrers.at(-1), { value: 'other', clicks: 2 + 1 })
      assert.deepEqual(referrers, ownReferrers.slice(0, 10))
      assert.equal(referrers[0].value, 'r01.example')
      assert.equal(rest.humanClicks, 78)

      // A token or a session is not needed, nor looked at: a bogus one changes nothing.
      assert.equal((await publicStats(link.id, '', { token: 'not-a-token' })).status, 200)
      assert.equal((await publicStats(link.id, '', { headers: { cookie: 'linkline_session=bogus' } })).status, 200)
      // The owner's query parameters, checked alike.
      const hourly = await publicStats(link.id, '?interval=hour&from=2026-01-01T00:00:00Z&to=2026-01-01T05:00:00Z')
      assert.equal(hourly.status, 200, hourly.text)
      assert.equal(hourly.body.data.timeseries.length, 5)
      const bad = await publicStats(link.id, '?interval=week')
      assert.equal(bad.status, 400)
      assert.equal(bad.body.error.param, 'interval')
      assert.equal((await publicStats(link.id, '?from=2026-02-01&to=2026-01-01')).body.error.param, 'from')
      assert.equal((await publicStats(link.id, '?unknown=1')).status, 400)
    })

    test('a private, deleted or unknown link is the same 404, whatever the query', async () => {
      const unknown = await publicStats('lnk_unknown')
      assert.equal(unknown.status, 404)
      assert.equal(unknown.body.error.code, 'not_found')
      const same = (r: { status: number; body: { error: unknown } }) => {
        assert.equal(r.status, 404)
        assert.deepEqual(r.body.error, unknown.body.error)
      }
      const secret = await createLink({ path: '/ps-private' })
      same(await publicStats(secret.id))
      // The owner's own token does not open a private link here either.
      same(await publicStats(secret.id, '', { token: s.token }))
      // The resource comes before the parameters.
      same(await publicStats(secret.id, '?interval=week'))
      const other = await createLink({ path: '/ps-bob', publicStats: true }, bob)
      assert.equal((await publicStats(other.id)).status, 200)
      const closing = await createLink({ path: '/ps-closing', publicStats: true })
      assert.equal((await publicStats(closing.id)).status, 200)
      assert.equal((await s.request('PATCH', `/v1/links/${closing.id}`, { json: { publicStats: false } })).status, 200)
      same(await publicStats(closing.id))
      const deleted = await createLink({ path: '/ps-deleted', publicStats: true })
      assert.equal((await s.request('DELETE', `/v1/links/${deleted.id}`)).status, 200)
      same(await publicStats(deleted.id))
      // Read only.
      const post = await s.request('POST', `/v1/public/links/${other.id}/stats`, { token: null, json: {} })
      assert.equal(post.status, 405)
      assert.equal(post.headers.allow, 'GET, HEAD')
    })

    test('<short URL>+ leads to the public page of a public link, and is not a visit of it', async () => {
      const link = await createLink({ path: '/ps-plus', publicStats: true })
      const r = await visit('/ps-plus+')
      assert.equal(r.status, 302)
      assert.equal(r.headers.location, `http://${s.host}/app/public/${link.id}`)
      assert.equal(r.headers['cache-control'], 'private, no-store')
      assert.equal((await visit('/ps-plus+', {}, 'HEAD')).status, 302)
      // Also once the link is cached, and with a query or a trailing slash.
      assert.equal((await visit('/ps-plus')).status, 302)
      assert.equal((await visit('/ps-plus+?utm_source=x')).headers.location, `http://${s.host}/app/public/${link.id}`)
      assert.equal((await visit('/ps-plus+/')).status, 302)
      await s.container.clicks.flush()
      const counted = await s.request('GET', `/v1/links/${link.id}/stats`)
      assert.equal(counted.body.data.totalClicks, 1, 'only the visit of the short URL itself')

      // The page itself is the dashboard's, open without a session.
      const page = await s.request('GET', `/app/public/${link.id}`, { token: null })
      assert.equal(page.status, 200)
      assert.match(String(page.headers['content-type']), /^text\/html/)
    })

    test('<short URL>+ of a private or unknown link is an ordinary missing path', async () => {
      await createLink({ path: '/ps-plus-private' })
      for (const path of ['/ps-plus-private+', '/ps-nothing+', '/+', '/ps-plus-private++']) {
        const r = await visit(path)
        assert.equal(r.status, 404, path)
        assert.match(r.text, /Link not found/, path)
      }
      // Turned public, it leads to the page at once (the cached target was dropped).
      const id = (await s.request('GET', '/v1/links?query[path]=/ps-plus-private')).body.data[0].id as string
      assert.equal((await s.request('PATCH', `/v1/links/${id}`, { json: { publicStats: true } })).status, 200)
      assert.equal((await visit('/ps-plus-private+')).status, 302)
    })

    test('a link whose path really ends in + is redirected as any link, public or not', async () => {
      // No path with + can be created through the API; one can be there all the same (a fixture, as an old import would leave it).
      const plain = await createLink({ path: '/ps-literal', publicStats: true })
      await insertLink(s.container.storage.db, {
        owner_id: 'alice',
        domain: s.host,
        path: '/ps-literal+',
        destination: 'https://literal.example/',
        public_stats: 0,
      })
      const r = await visit('/ps-literal+')
      assert.equal(r.status, 302)
      assert.equal(r.headers.location, 'https://literal.example/')
      // Without the +, the other link as ever.
      assert.equal((await visit('/ps-literal')).headers.location, 'https://dest.example/page')
      assert.ok(plain.publicStats)
    })

    test('<short URL>+ on a custom domain leads to the dashboard on the first default domain', async () => {
      assert.equal((await s.request('POST', '/v1/domains', { json: { name: 'go.public.example' } })).status, 201)
      const link = await createLink({ path: '/ps-custom', domain: 'go.public.example', publicStats: true })
      const r = await visit('/ps-custom+', { host: 'go.public.example' })
      assert.equal(r.status, 302)
      assert.equal(r.headers.location, `http://${s.host}/app/public/${link.id}`)
      // The same path on the default domain is another place: nothing there.
      assert.equal((await visit('/ps-custom+')).status, 404)
    })
  })
}

describe('public statistics: the anonymous budget and the public URL', () => {
  let s: TestServer
  before(async () => {
    s = await startTestServer({ env: { LINKLINE_ANONYMOUS_RATE_LIMIT: '3', LINKLINE_PUBLIC_URL: 'https://links.example' } })
  })
  after(() => s.close())

  test('every answer counts against the address, successes too; a valid token still passes', async () => {
    const r = await s.request('POST', '/v1/links', { json: { destination: 'https://dest.example/', path: '/budget', publicStats: true } })
    const id = r.body.data.id as string
    for (let i = 0; i < 3; i++) assert.equal((await s.request('GET', `/v1/public/links/${id}/stats`, { token: null })).status, 200)
    const over = await s.request('GET', `/v1/public/links/${id}/stats`, { token: null })
    assert.equal(over.status, 429)
    assert.equal(over.body.error.code, 'rate_limited')
    assert.ok(Number(over.headers['retry-after']) >= 1)
    assert.equal((await s.request('GET', `/v1/public/links/${id}/stats`, { token: s.token })).status, 200)
  })

  test('<short URL>+ leads to the configured public URL', async () => {
    const r = await s.request('POST', '/v1/links', { json: { destination: 'https://dest.example/', path: '/public-url', publicStats: true } })
    const visit = await s.request('GET', '/public-url+', { token: null })
    assert.equal(visit.headers.location, `https://links.example/app/public/${r.body.data.id}`)
  })
})
