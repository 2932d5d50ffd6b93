import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { freePort } from '../../test/free-port.js'
import type { Response } from '../../test/http-client.js'
import { signInAtProvider, startOidcProvider, type ProviderAccount, type TestOidcProvider } from '../../test/oidc-provider.js'
import { SIGN_IN_FAILURES } from '../sessions/sign-in-limits.js'

// The browser reaches Linkline as http://app.test (the Host header); the server with LINKLINE_PUBLIC_URL says it is links.example.com.
const APP_HOST = 'app.test'
const APP_CALLBACK = `http://${APP_HOST}/v1/auth/oidc/callback`
const PUBLIC_URL = 'https://links.example.com'
const PUBLIC_CALLBACK = `${PUBLIC_URL}/v1/auth/oidc/callback`

/** People at the provider, by the login typed on its form. */
const ACCOUNTS: Record<string, ProviderAccount> = {
  ada: { email: 'Ada@Example.com', email_verified: true, name: 'Ada Lovelace' },
  'ada-unverified': { email: 'ada@example.com', email_verified: false, name: 'Not Ada' },
  grace: { email: 'grace@example.org', email_verified: true, name: 'Grace Hopper' },
  linus: { email: 'linus@EXAMPLE.org', email_verified: true },
  eve: { email: 'eve@example.org', email_verified: false, name: 'Eve' },
  mallory: { email: 'mallory@elsewhere.example', email_verified: true, name: 'Mallory' },
  gone: { email: 'gone@example.com', email_verified: true },
}

// Each test signs in from an address of its own: refusals count against the address (sign-in limits).
let lastAddress = 0
const newAddress = () => `203.0.113.${++lastAddress}`

const setCookies = (res: Response): string[] => [res.headers['set-cookie'] ?? []].flat()
const cookieHeader = (res: Response, name: string) => setCookies(res).find((c) => c.startsWith(`${name}=`))
const cookieValue = (res: Response, name: string) =>
  cookieHeader(res, name)
    ?.split(';')[0]
    ?.slice(name.length + 1)

/** A browser at Linkline: `GET path` from `address`, with the cookie it carries. */
const visit = (server: TestServer, path: string, address: string, headers: Record<string, string> = {}) =>
  server.request('GET', path, { token: null, headers: { host: APP_HOST, 'x-forwarded-for': address, ...headers } })

/** The sign-in button: Linkline's redirect to the provider, and the pending cookie (`linkline_oidc=…`). */
async function start(server: TestServer, address: string, headers: Record<string, string> = {}) {
  const res = await visit(server, '/v1/auth/oidc/start', address, headers)
  assert.equal(res.status, 302, res.text)
  const value = cookieValue(res, 'linkline_oidc')
  assert.ok(value, `a pending cookie: ${setCookies(res).join(' | ')}`)
  return { res, location: String(res.headers.location), cookie: `linkline_oidc=${value}` }
}

/** Back from the provider: the callback URL it sent the browser to, on this server, with `cookie` if any. */
const callback = (server: TestServer, url: URL, address: string, cookie?: string) =>
  visit(server, `${url.pathname}${url.search}`, address, cookie === undefined ? {} : { cookie })

/** The whole sign-in as `login` at the provider, from the button to the callback's answer. */
async function signInAs(server: TestServer, login: string | { deny: true }, address = newAddress()) {
  const { location, cookie } = await start(server, address)
  const returned = await signInAtProvider(location, login)
  return { res: await callback(server, returned, address, cookie), returned }
}

/** A signed-in answer: into the dashboard with a session cookie, the pending one cleared. Gives the session's cookie header. */
function signedIn(res: Response): string {
  assert.equal(res.status, 302, res.text)
  assert.equal(res.headers.location, '/app/')
  assert.equal(res.headers['cache-control'], 'no-store')
  assert.match(cookieHeader(res, 'linkline_oidc') ?? '', /^linkline_oidc=; Path=\/v1\/auth\/oidc; .*Max-Age=0/, 'the pending cookie is cleared')
  const session = cookieValue(res, 'linkline_session')
  assert.match(session ?? '', /^[A-Za-z0-9_-]{43}$/)
  return `linkline_session=${session}`
}

/** A refused answer: to the dashboard with a short reason matching `reason`, no session, and nothing of the provider's answer in the URL. */
function refused(res: Response, reason: RegExp, returned?: URL): string {
  assert.equal(res.status, 302, res.text)
  const location = new URL(String(res.headers.location), 'http://app.test')
  assert.equal(`${location.pathname}?${[...location.searchParams.keys()].join('&')}`, '/app/?sso_error')
  const said = location.searchParams.get('sso_error') ?? ''
  assert.match(said, reason)
  assert.ok(said.length <= 200, said)
  assert.equal(cookieValue(res, 'linkline_session'), undefined, 'no session')
  for (const value of returned?.searchParams.values() ?? []) assert.ok(!said.includes(value) && !String(res.headers.location).includes(value), value)
  return said
}

const me = async (server: TestServer, cookie: string) => {
  const res = await server.request('GET', '/v1/me', { token: null, headers: { cookie } })
  assert.equal(res.status, 200, res.text)
  return res.body.data
}

for (const backend of backends) {
  describe(`single sign-on routes (${backend})`, () => {
    let provider: TestOidcProvider
    let s: TestServer
    let publicServer: TestServer
    const servers: TestServer[] = []
    before(async () => {
      provider = await startOidcProvider({ redirectUris: [APP_CALLBACK, PUBLIC_CALLBACK], accounts: ACCOUNTS })
      const oidc = {
        LINKLINE_OIDC_ISSUER: provider.issuer,
        LINKLINE_OIDC_CLIENT_ID: provider.clientId,
        LINKLINE_OIDC_CLIENT_SECRET: provider.clientSecret,
        LINKLINE_OIDC_NAME: 'Test IdP',
        LINKLINE_TRUST_PROXY: 'true',
      }
      s = await startTestServer({
        backend,
        env: { ...oidc, LINKLINE_OIDC_ALLOWED_DOMAINS: 'example.org', LINKLINE_OIDC_DEFAULT_WORKSPACE: 'team', LINKLINE_OIDC_DEFAULT_ROLE: 'viewer' },
      })
      publicServer = await startTestServer({ backend, env: { ...oidc, LINKLINE_PUBLIC_URL: PUBLIC_URL, LINKLINE_PASSWORD_SIGNIN: 'off' } })
      servers.push(s, publicServer)
      for (const server of servers) {
        const ada = await server.container.accounts.createUser({ email: 'ada@example.com', name: 'Ada', password: 'correct horse battery' })
        await server.container.accounts.join(ada.id, 'alice', 'admin')
      }
    })
    after(async () => {
      for (const server of servers) await server.close()
      await provider.close()
    })

    test('an existing user signs in by a verified email, whatever its case: a session of theirs, in their workspace with their role', async () => {
      const { res } = await signInAs(s, 'ada')
      const session = signedIn(res)
      const who = await me(s, session)
      const ada = await s.container.accounts.findUserByEmail('ada@example.com')
      assert.equal(who.user.id, ada?.id)
      assert.equal(who.user.email, 'ada@example.com', 'the account keeps its own email')
      assert.notEqual(who.user.lastSignInAt, null)
      assert.deepEqual(who.principal, { workspaceId: 'alice', role: 'admin', via: 'session', scopes: who.principal.scopes })
      assert.ok(who.principal.scopes.includes('members:write'))
      assert.equal((await s.request('GET', '/v1/links', { token: null, headers: { cookie: session } })).status, 200)
    })

    test('the start sends the browser to the provider with the redirect URI of this origin, and the pending cookie', async () => {
      const address = newAddress()
      const { res, location } = await start(s, address)
      const sent = new URL(location)
      assert.equal(sent.origin, provider.issuer)
      assert.equal(sent.searchParams.get('redirect_uri'), APP_CALLBACK)
      assert.equal(sent.searchParams.get('client_id'), provider.clientId)
      assert.equal(res.headers['cache-control'], 'no-store')
      const pending = cookieHeader(res, 'linkline_oidc') ?? ''
      assert.match(pending, /^linkline_oidc=v1\.[A-Za-z0-9_-]+; /)
      for (const attribute of ['Path=/v1/auth/oidc', 'HttpOnly', 'SameSite=Lax', 'Max-Age=600']) assert.ok(pending.split('; ').includes(attribute), attribute)
      assert.doesNotMatch(pending, /Secure/, 'plain HTTP: no Secure flag')
      assert.ok(!pending.includes(sent.searchParams.get('state') ?? '-'), 'the cookie is sealed: it does not show the state')

      const overHttps = await start(s, address, { 'x-forwarded-proto': 'https' })
      assert.match(cookieHeader(overHttps.res, 'linkline_oidc') ?? '', /; Secure/)
      assert.equal(new URL(overHttps.location).searchParams.get('redirect_uri'), `https://${APP_HOST}/v1/auth/oidc/callback`)
    })

    test('a verified email of an allowed domain gets an account in the default workspace with the default role', async () => {
      assert.equal(await s.container.accounts.findUserByEmail('grace@example.org'), undefined)
      const who = await me(s, signedIn((await signInAs(s, 'grace')).res))
      assert.deepEqual([who.user.email, who.user.name], ['grace@example.org', 'Grace Hopper'])
      assert.deepEqual([who.principal.workspaceId, who.principal.role, who.principal.via], ['team', 'viewer', 'session'])
      assert.deepEqual(
        who.memberships.map((m: { workspaceId: string; role: string }) => [m.workspaceId, m.role]),
        [['team', 'viewer']],
      )
      // The next sign-in finds that account.
      const again = await me(s, signedIn((await signInAs(s, 'grace')).res))
      assert.equal(again.user.id, who.user.id)
      assert.equal((await s.container.accounts.listUsers()).filter((u) => u.email_key === 'grace@example.org').length, 1)

      // Without a name from the provider, the email's local part; the email as the provider spelled it.
      const linus = await me(s, signedIn((await signInAs(s, 'linus')).res))
      assert.deepEqual([linus.user.email, linus.user.name], ['linus@EXAMPLE.org', 'linus'])
    })

    test('an email the provider has not verified is refused: no account is created, and none is signed in to', async () => {
      const eve = await signInAs(s, 'eve')
      refused(eve.res, /not verified your email/, eve.returned)
      assert.equal(await s.container.accounts.findUserByEmail('eve@example.org'), undefined)
      // The email of an existing user, unverified: refused too.
      const notAda = await signInAs(s, 'ada-unverified')
      refused(notAda.res, /not verified your email/, notAda.returned)
    })

    test('a verified email of another domain, without an account, is refused', async () => {
      const { res, returned } = await signInAs(s, 'mallory')
      const reason = refused(res, /no account here for your email address/, returned)
      assert.ok(!reason.includes('mallory'), 'the reason does not repeat the email')
      assert.match(cookieHeader(res, 'linkline_oidc') ?? '', /Max-Age=0/, 'the pending cookie is cleared after a refusal too')
      assert.equal(await s.container.accounts.findUserByEmail('mallory@elsewhere.example'), undefined)
    })

    test('a user who belongs to no workspace any more is refused with the reason', async () => {
      await s.container.accounts.createUser({ email: 'gone@example.com' })
      refused((await signInAs(s, 'gone')).res, /belongs to no workspace/)
    })

    test('cancelling at the provider comes back refused', async () => {
      const { res, returned } = await signInAs(s, { deny: true })
      assert.equal(returned.searchParams.get('error'), 'access_denied')
      refused(res, /cancelled or refused at the provider/, returned)
    })

    test("the provider's own error words reach the reason only short, on one line, and never a run that could be a credential", async () => {
      const address = newAddress()
      const answer = async (error: string) => {
        const { location, cookie } = await start(s, address)
        const returned = new URL(APP_CALLBACK)
        returned.searchParams.set('error', error)
        returned.searchParams.set('state', new URL(location).searchParams.get('state') ?? '')
        // This provider names itself in its answers (RFC 9207), and an answer without its name is refused.
        returned.searchParams.set('iss', provider.issuer)
        const reason = refused(await callback(s, returned, address, cookie), /./)
        assert.ok(!reason.includes(returned.searchParams.get('state') ?? '-'))
        return reason
      }
      assert.equal(await answer('temporarily_unavailable'), 'the provider refused the sign-in (temporarily_unavailable)')
      assert.equal(await answer(`leaked_${'x'.repeat(40)}`), 'single sign-on did not complete: start again')
      const long = await answer(`${'too many words\r\n'.repeat(30)}`)
      assert.equal(long.length, 200)
      assert.match(long, /^the provider refused the sign-in \(too many words too many words .*…$/)
    })

    test('a callback without the pending cookie, or with one tampered with, is refused', async () => {
      const address = newAddress()
      const { location, cookie } = await start(s, address)
      const returned = await signInAtProvider(location, 'ada')
      refused(await callback(s, returned, address), /not started in this browser/, returned)
      const sealed = cookie.slice('linkline_oidc='.length)
      const at = Math.floor(sealed.length / 2)
      const tampered = `linkline_oidc=${sealed.slice(0, at)}${sealed[at] === 'A' ? 'B' : 'A'}${sealed.slice(at + 1)}`
      refused(await callback(s, returned, address, tampered), /cookie is not valid/, returned)
      refused(await callback(s, returned, address, 'linkline_oidc=v1.garbage'), /cookie is not valid/, returned)
      // The untouched cookie still completes the very same answer: the refusals were the cookie's.
      signedIn(await callback(s, returned, address, cookie))
    })

    test("an answer brought back with another sign-in's cookie is refused (state mismatch)", async () => {
      const address = newAddress()
      const first = await start(s, address)
      const second = await start(s, address)
      const returned = await signInAtProvider(first.location, 'ada')
      refused(await callback(s, returned, address, second.cookie), /failed a security check/, returned)
      signedIn(await callback(s, returned, address, first.cookie))
    })

    test(`refusals count as failed sign-ins of the address: after ${SIGN_IN_FAILURES}, even a good sign-in is refused, passwords too`, async () => {
      const address = newAddress()
      const returned = new URL(`${APP_CALLBACK}?code=whatever&state=whatever`)
      for (let i = 0; i < SIGN_IN_FAILURES; i++) refused(await callback(s, returned, address), /not started in this browser/)
      const { res } = await signInAs(s, 'ada', address)
      refused(res, /over 10 failed sign-ins in 15 minutes from this address; retry in \d+ s/)
      const password = await s.request('POST', '/v1/sessions', {
        token: null,
        json: { email: 'ada@example.com', password: 'correct horse battery' },
        headers: { 'x-forwarded-for': address },
      })
      assert.equal(password.status, 429)
      // Another address is not concerned.
      signedIn((await signInAs(s, 'ada')).res)
    })

    test('the redirect URI honours LINKLINE_PUBLIC_URL, whatever host the request came through', async () => {
      const address = newAddress()
      const { location, cookie } = await start(publicServer, address)
      assert.equal(new URL(location).searchParams.get('redirect_uri'), PUBLIC_CALLBACK)
      const returned = await signInAtProvider(location, 'ada')
      assert.equal(`${returned.origin}${returned.pathname}`, PUBLIC_CALLBACK)
      const who = await me(publicServer, signedIn(await callback(publicServer, returned, address, cookie)))
      assert.equal(who.user.email, 'ada@example.com')
    })

    test('with LINKLINE_PASSWORD_SIGNIN=off, an email and password is 403; a token still signs in, and so does single sign-on', async () => {
      const password = await publicServer.request('POST', '/v1/sessions', {
        token: null,
        json: { email: 'ada@example.com', password: 'correct horse battery' },
      })
      assert.equal(password.status, 403, password.text)
      assert.deepEqual([password.body.error.code, password.body.error.param], ['forbidden', 'password'])
      assert.equal(password.headers['set-cookie'], undefined)
      const token = await publicServer.request('POST', '/v1/sessions', { token: null, json: { token: publicServer.token } })
      assert.equal(token.status, 201, token.text)
      const { res } = await signInAs(publicServer, 'ada')
      assert.equal((await me(publicServer, signedIn(res))).user.email, 'ada@example.com')
    })

    test('GET /v1/auth/methods says how people sign in, without a token', async () => {
      const methods = await s.request('GET', '/v1/auth/methods', { token: null })
      assert.equal(methods.status, 200, methods.text)
      assert.deepEqual(methods.body, { success: true, data: { password: true, sso: { name: 'Test IdP', startUrl: '/v1/auth/oidc/start' } } })
      assert.match(String(methods.headers['cache-control']), /max-age=\d+/)
      const unknown = await s.request('GET', '/v1/auth/methods?sso=1', { token: null })
      assert.deepEqual([unknown.status, unknown.body.error.code, unknown.body.error.param], [400, 'validation_error', 'sso'])
      const off = await publicServer.request('GET', '/v1/auth/methods', { token: null })
      assert.deepEqual(off.body.data, { password: false, sso: { name: 'Test IdP', startUrl: '/v1/auth/oidc/start' } })
    })
  })

  describe(`single sign-on not configured, or its provider down (${backend})`, () => {
    let none: TestServer
    let down: TestServer
    before(async () => {
      none = await startTestServer({ backend })
      const issuer = `http://127.0.0.1:${await freePort()}`
      down = await startTestServer({
        backend,
        env: { LINKLINE_OIDC_ISSUER: issuer, LINKLINE_OIDC_CLIENT_ID: 'linkline', LINKLINE_OIDC_CLIENT_SECRET: 'secret' },
      })
    })
    after(async () => {
      await none?.close()
      await down?.close()
    })

    test('without LINKLINE_OIDC_ISSUER the routes are 404 and the methods say password only', async () => {
      for (const path of ['/v1/auth/oidc/start', '/v1/auth/oidc/callback?code=x&state=y']) {
        const res = await none.request('GET', path, { token: null })
        assert.equal(res.status, 404, path)
        assert.equal(res.body.error.code, 'not_found')
        assert.equal(res.headers['set-cookie'], undefined)
      }
      const methods = await none.request('GET', '/v1/auth/methods', { token: null })
      assert.deepEqual(methods.body.data, { password: true, sso: null })
    })

    test('a provider that cannot be reached ends on the dashboard with the reason, not an error of the API', async () => {
      const res = await visit(down, '/v1/auth/oidc/start', newAddress())
      refused(res, /^single sign-on is unavailable right now$/)
      assert.equal(cookieHeader(res, 'linkline_oidc'), undefined, 'no pending cookie')
    })
  })
}
