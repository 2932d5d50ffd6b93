import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { asBrowser, cookieOf, person, signIn, signInRequest } from '../../test/people.js'
import { SESSION_LIFETIME_MS } from '../sessions/sessions.service.js'
import { SIGN_IN_FAILURES } from '../sessions/sign-in-limits.js'
import { PASSWORD_MAX_LENGTH } from './accounts.service.js'
import { scopesOfRole } from './roles.js'
import { movableClock } from '../../test/movable-clock.js'

const DAY_MS = 24 * 60 * 60 * 1000

const sorted = (values: Iterable<string>) => [...values].sort()

for (const backend of backends) {
  describe(`people signing in and acting with their role (${backend})`, () => {
    let s: TestServer
    const clock = movableClock()
    before(async () => {
      // Sign-in limits count per client address: tests that exhaust one say which (x-forwarded-for).
      s = await startTestServer({ backend, container: { clock }, env: { LINKLINE_TRUST_PROXY: 'true' } })
    })
    after(() => s.close())

    let addresses = 0
    /** An address no other test signs in from. */
    const address = () => `198.51.100.${++addresses}`

    test('an email and password open a session: 201, an HttpOnly SameSite=Strict cookie acting as the person', async () => {
      const ada = await person(s, 'ws-signin', 'member', 'ada')
      const res = await signInRequest(s, { email: ada.email, password: ada.password })
      assert.equal(res.status, 201, res.text)
      const header = [res.headers['set-cookie'] ?? []].flat()[0] ?? ''
      assert.match(header, /^linkline_session=[A-Za-z0-9_-]{43}; /)
      assert.match(header, /; HttpOnly/)
      assert.match(header, /; SameSite=Strict/)
      assert.match(header, /; Path=\//)
      assert.deepEqual(res.body.data, {
        ownerId: 'ws-signin',
        scopes: [...scopesOfRole('member')],
        tokenId: null,
        userId: ada.id,
        via: 'session',
      })
      assert.doesNotMatch(res.text, new RegExp(ada.password), 'the password is not echoed')
      const current = await s.request('GET', '/v1/sessions/current', asBrowser(s, cookieOf(res)))
      assert.equal(current.status, 200)
      assert.deepEqual([current.body.data.ownerId, current.body.data.userId, current.body.data.via], ['ws-signin', ada.id, 'session'])
    })

    test('the email is matched whatever its case and surrounding spaces; the password is not', async () => {
      const ada = await person(s, 'ws-signin', 'member', 'Ada.Case')
      const shouted = `  ${ada.email.toUpperCase()}\t`
      const res = await signInRequest(s, { email: shouted, password: ada.password }, { 'x-forwarded-for': address() })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.data.userId, ada.id)
      const wrongCase = await signInRequest(s, { email: ada.email, password: ada.password.toUpperCase() }, { 'x-forwarded-for': address() })
      assert.equal(wrongCase.status, 401)
    })

    test('an unknown email, a wrong password and a person without a password get the very same 401', async () => {
      const ada = await person(s, 'ws-signin', 'member', 'ada')
      const sso = await s.container.accounts.createUser({ email: `sso-${process.pid}@example.com`, name: 'SSO only' })
      await s.container.accounts.join(sso.id, 'ws-signin', 'member')
      const from = address()
      const answers = await Promise.all(
        [
          { email: `nobody-${process.pid}@example.com`, password: ada.password },
          { email: ada.email, password: 'not the password' },
          { email: sso.email, password: 'any password at all' },
        ].map((body) => signInRequest(s, body, { 'x-forwarded-for': from })),
      )
      for (const res of answers) {
        assert.equal(res.status, 401, res.text)
        assert.equal(res.headers['www-authenticate'], 'Bearer', 'like every 401 of the API')
        assert.equal(res.headers['set-cookie'], undefined)
      }
      const [unknown, ...others] = answers.map((res) => res.body)
      assert.equal(unknown.error.code, 'unauthorized')
      for (const other of others) assert.deepEqual(other, unknown)
    })

    test('the 11th failure for one email in 15 minutes is 429, even from another address and with the right password', async () => {
      const ada = await person(s, 'ws-signin', 'member', 'guessed')
      for (let i = 0; i < SIGN_IN_FAILURES; i++) {
        // Each guess from an address of its own, the email spelled differently: one email all the same.
        const email = i % 2 === 0 ? ada.email : ` ${ada.email.toUpperCase()} `
        const res = await signInRequest(s, { email, password: `guess number ${i}` }, { 'x-forwarded-for': address() })
        assert.equal(res.status, 401, `guess ${i}: ${res.text}`)
      }
      const limited = await signInRequest(s, { email: ada.email, password: ada.password }, { 'x-forwarded-for': address() })
      assert.equal(limited.status, 429, limited.text)
      assert.equal(limited.body.error.code, 'rate_limited')
      assert.ok(Number(limited.headers['retry-after']) > 60, 'the window is 15 minutes')
      assert.equal(limited.headers['set-cookie'], undefined)
      // Another person signs in from that very address.
      const bea = await person(s, 'ws-signin', 'member', 'bea')
      const other = await signInRequest(s, { email: bea.email, password: bea.password }, { 'x-forwarded-for': `198.51.100.${addresses}` })
      assert.equal(other.status, 201, other.text)
    })

    test('the 11th failure from one address in 15 minutes is 429 for any email; another address signs in', async () => {
      const from = address()
      for (let i = 0; i < SIGN_IN_FAILURES; i++) {
        const res = await signInRequest(s, { email: `stranger-${i}-${process.pid}@example.com`, password: 'wrong password' }, { 'x-forwarded-for': from })
        assert.equal(res.status, 401, `try ${i}: ${res.text}`)
      }
      const ada = await person(s, 'ws-signin', 'member', 'neighbour')
      const limited = await signInRequest(s, { email: ada.email, password: ada.password }, { 'x-forwarded-for': from })
      assert.equal(limited.status, 429, limited.text)
      assert.equal(limited.body.error.code, 'rate_limited')
      assert.equal(limited.headers['set-cookie'], undefined)
      const elsewhere = await signInRequest(s, { email: ada.email, password: ada.password }, { 'x-forwarded-for': address() })
      assert.equal(elsewhere.status, 201, elsewhere.text)
    })

    test('a password over 1,024 characters is 400 on password, refused before any hash is computed', async () => {
      const ada = await person(s, 'ws-signin', 'member', 'long')
      const hashing = s.container.accountHashing
      const verify = hashing.verify
      let verified = 0
      hashing.verify = (...args) => {
        verified++
        return verify(...args)
      }
      try {
        const from = address()
        const tooLong = await signInRequest(s, { email: ada.email, password: 'x'.repeat(PASSWORD_MAX_LENGTH + 1) }, { 'x-forwarded-for': from })
        assert.equal(tooLong.status, 400, tooLong.text)
        assert.deepEqual([tooLong.body.error.code, tooLong.body.error.param], ['validation_error', 'password'])
        assert.equal(verified, 0, 'no scrypt ran')
        const longest = await signInRequest(s, { email: ada.email, password: 'x'.repeat(PASSWORD_MAX_LENGTH) }, { 'x-forwarded-for': from })
        assert.equal(longest.status, 401, 'the longest password allowed is checked')
        assert.equal(verified, 1)
      } finally {
        hashing.verify = verify
      }
    })

    test('an email and a token in one body is 400; so is an email without a password', async () => {
      const ada = await person(s, 'ws-signin', 'member', 'both')
      for (const body of [
        { email: ada.email, password: ada.password, token: s.token },
        { email: ada.email, token: s.token },
      ]) {
        const res = await signInRequest(s, body)
        assert.equal(res.status, 400, res.text)
        assert.deepEqual([res.body.error.code, res.body.error.param], ['validation_error', 'token'])
        assert.equal(res.headers['set-cookie'], undefined)
      }
      const noPassword = await signInRequest(s, { email: ada.email })
      assert.equal(noPassword.status, 400)
      assert.deepEqual([noPassword.body.error.code, noPassword.body.error.param], ['validation_error', 'password'])
    })

    test('signing a person in from another site is refused (login CSRF), right password or not', async () => {
      const ada = await person(s, 'ws-signin', 'member', 'csrf')
      for (const headers of [{ origin: 'http://evil.example' }, { origin: 'null' }, { origin: `http://${s.host}.evil.example` }]) {
        const res = await signInRequest(s, { email: ada.email, password: ada.password }, headers)
        assert.equal(res.status, 403, JSON.stringify(headers))
        assert.deepEqual([res.body.error.code, res.body.error.param], ['forbidden', 'Origin'])
        assert.equal(res.headers['set-cookie'], undefined, 'no session was opened')
      }
      await signIn(s, ada)
    })

    test('GET /v1/me for a person: the user, the principal of their session and every membership', async () => {
      const ada = await person(s, 'me-b', 'viewer', 'me')
      await s.container.accounts.join(ada.id, 'me-a', 'admin')
      const cookie = await signIn(s, ada)
      const me = await s.request('GET', '/v1/me', asBrowser(s, cookie))
      assert.equal(me.status, 200, me.text)
      const { user, principal, memberships } = me.body.data
      assert.deepEqual(
        { ...user, createdAt: undefined, lastSignInAt: undefined },
        { id: ada.id, email: ada.email, name: 'me', createdAt: undefined, lastSignInAt: undefined },
      )
      assert.ok(Date.parse(user.lastSignInAt) >= Date.parse(user.createdAt), 'signing in was recorded')
      assert.equal('password' in user || 'passwordHash' in user, false)
      // The first workspace by name.
      assert.deepEqual(
        { ...principal, scopes: sorted(principal.scopes) },
        { workspaceId: 'me-a', scopes: sorted(scopesOfRole('admin')), role: 'admin', via: 'session' },
      )
      assert.deepEqual(memberships, [
        { workspaceId: 'me-a', workspaceName: 'me-a', role: 'admin' },
        { workspaceId: 'me-b', workspaceName: 'me-b', role: 'viewer' },
      ])
    })

    test("GET /v1/me for a bearer token: no user, via token; an operator's token acts as owner, a person's with their role", async () => {
      const me = await s.request('GET', '/v1/me')
      assert.equal(me.status, 200, me.text)
      assert.equal(me.body.data.user, null)
      assert.deepEqual(me.body.data.memberships, [])
      const { principal } = me.body.data
      assert.deepEqual([principal.workspaceId, principal.role, principal.via], ['alice', 'owner', 'token'])
      assert.ok(principal.scopes.includes('members:write'))

      const ada = await person(s, 'me-token', 'admin', 'maker')
      const made = await s.request('POST', '/v1/tokens', asBrowser(s, await signIn(s, ada), { json: { name: 'script' } }))
      assert.equal(made.status, 201, made.text)
      const its = await s.request('GET', '/v1/me', { token: made.body.data.token })
      assert.equal(its.body.data.user, null)
      assert.deepEqual([its.body.data.principal.workspaceId, its.body.data.principal.role, its.body.data.principal.via], ['me-token', 'admin', 'token'])
    })

    test('roles: a viewer reads links but cannot write them; a member writes links but not domains; an admin manages members', async () => {
      const [viewer, member, admin] = await Promise.all([person(s, 'roles', 'viewer'), person(s, 'roles', 'member'), person(s, 'roles', 'admin')])
      const [asViewer, asMember, asAdmin] = await Promise.all([signIn(s, viewer), signIn(s, member), signIn(s, admin)])
      const link = { destination: 'https://example.com/roles' }

      assert.equal((await s.request('GET', '/v1/links', asBrowser(s, asViewer))).status, 200)
      const refused = await s.request('POST', '/v1/links', asBrowser(s, asViewer, { json: link }))
      assert.equal(refused.status, 403, refused.text)
      assert.equal(refused.body.error.code, 'forbidden')
      assert.match(refused.body.error.message, /links:write/)

      const created = await s.request('POST', '/v1/links', asBrowser(s, asMember, { json: link }))
      assert.equal(created.status, 201, created.text)
      assert.equal(created.body.data.ownerId, 'roles')
      assert.deepEqual(created.body.data.createdBy, { type: 'user', id: member.id, label: member.email })
      const domain = await s.request('POST', '/v1/domains', asBrowser(s, asMember, { json: { name: 'roles.example' } }))
      assert.equal(domain.status, 403, domain.text)
      assert.match(domain.body.error.message, /domains:write/)
      assert.equal((await s.request('PATCH', `/v1/members/${viewer.id}`, asBrowser(s, asMember, { json: { role: 'member' } }))).status, 403)

      const promoted = await s.request('PATCH', `/v1/members/${viewer.id}`, asBrowser(s, asAdmin, { json: { role: 'member' } }))
      assert.equal(promoted.status, 200, promoted.text)
      assert.equal(promoted.body.data.role, 'member')
      assert.equal((await s.request('POST', '/v1/links', asBrowser(s, asViewer, { json: link }))).status, 201, 'the new role holds at once')
    })

    test("switching workspace: the session acts in another of the person's workspaces; others are 404", async () => {
      const [inA, inB] = await Promise.all(
        ['switch-a', 'switch-b'].map(async (ws) => {
          const token = await s.createToken(ws)
          const res = await s.request('POST', '/v1/links', { token, json: { destination: `https://example.com/${ws}` } })
          assert.equal(res.status, 201, res.text)
          return res.body.data.id as string
        }),
      )
      const ada = await person(s, 'switch-a', 'member', 'switcher')
      await s.container.accounts.join(ada.id, 'switch-b', 'viewer')
      const cookie = await signIn(s, ada)
      const listed = async () => (await s.request('GET', '/v1/links', asBrowser(s, cookie))).body.data.map((l: { id: string }) => l.id)
      assert.deepEqual(await listed(), [inA])

      const moved = await s.request('PUT', '/v1/sessions/current', asBrowser(s, cookie, { json: { workspaceId: 'switch-b' } }))
      assert.equal(moved.status, 200, moved.text)
      assert.deepEqual([moved.body.data.ownerId, moved.body.data.userId, moved.body.data.via], ['switch-b', ada.id, 'session'])
      assert.deepEqual(sorted(moved.body.data.scopes), sorted(scopesOfRole('viewer')))
      assert.deepEqual(await listed(), [inB])
      const me = await s.request('GET', '/v1/me', asBrowser(s, cookie))
      assert.deepEqual([me.body.data.principal.workspaceId, me.body.data.principal.role], ['switch-b', 'viewer'])
      assert.equal((await s.request('POST', '/v1/links', asBrowser(s, cookie, { json: { destination: 'https://example.com/x' } }))).status, 403)

      const back = await s.request('PATCH', '/v1/sessions/current', asBrowser(s, cookie, { json: { workspaceId: 'switch-a' } }))
      assert.equal(back.status, 200, back.text)
      assert.deepEqual(await listed(), [inA])

      // 'alice' exists (the test server's token acts there) but is not one of hers.
      for (const workspaceId of ['no-such-workspace', 'alice']) {
        const res = await s.request('PUT', '/v1/sessions/current', asBrowser(s, cookie, { json: { workspaceId } }))
        assert.equal(res.status, 404, res.text)
        assert.deepEqual([res.body.error.code, res.body.error.param], ['not_found', 'workspaceId'])
      }
      assert.deepEqual(await listed(), [inA], 'a refused switch moved nothing')
      const bearer = await s.request('PUT', '/v1/sessions/current', { json: { workspaceId: 'alice' } })
      assert.equal(bearer.status, 404, bearer.text)
      assert.equal(bearer.body.error.code, 'not_found')
    })

    test('signing out everywhere ends every session of the person, and only theirs; signing out here ends this one', async () => {
      const ada = await person(s, 'signout', 'member', 'leaver')
      const bea = await person(s, 'signout', 'member', 'stayer')
      const [laptop, phone, tablet, beas] = await Promise.all([signIn(s, ada), signIn(s, ada), signIn(s, ada), signIn(s, bea)])
      const status = async (cookie: string) => (await s.request('GET', '/v1/me', asBrowser(s, cookie))).status
      // Her phone acts in another of her workspaces: signing out everywhere reaches it too.
      await s.container.accounts.join(ada.id, 'signout-other', 'viewer')
      assert.equal((await s.request('PUT', '/v1/sessions/current', asBrowser(s, phone, { json: { workspaceId: 'signout-other' } }))).status, 200)

      const here = await s.request('DELETE', '/v1/sessions/current', asBrowser(s, tablet))
      assert.equal(here.status, 200, here.text)
      assert.match([here.headers['set-cookie'] ?? []].flat()[0] ?? '', /^linkline_session=;.*Max-Age=0/)
      assert.deepEqual(await Promise.all([tablet, laptop, phone].map(status)), [401, 200, 200])

      const everywhere = await s.request('DELETE', '/v1/sessions', asBrowser(s, laptop))
      assert.equal(everywhere.status, 200, everywhere.text)
      assert.equal(everywhere.body.data.deleted, 2)
      assert.match([everywhere.headers['set-cookie'] ?? []].flat()[0] ?? '', /^linkline_session=;.*Max-Age=0/)
      assert.deepEqual(await Promise.all([laptop, phone].map(status)), [401, 401])
      assert.equal(await status(beas), 200, "another person's session lives on")
      assert.equal((await signInRequest(s, { email: ada.email, password: ada.password })).status, 201, 'she can sign in again')
    })

    test('signing out everywhere from another site is refused', async () => {
      const ada = await person(s, 'signout', 'member', 'csrf-out')
      const cookie = await signIn(s, ada)
      const res = await s.request('DELETE', '/v1/sessions', { token: null, headers: { cookie, origin: 'http://evil.example' } })
      assert.equal(res.status, 403, res.text)
      assert.equal((await s.request('GET', '/v1/me', asBrowser(s, cookie))).status, 200)
    })

    // Last: it moves the suite's clock forward by a month.
    test('a session ends 30 days after it opened, even when used every day', async () => {
      const ada = await person(s, 'lifetime', 'member', 'daily')
      const cookie = await signIn(s, ada)
      const use = () => s.request('GET', '/v1/me', asBrowser(s, cookie))
      for (let day = 1; day < 30; day++) {
        clock.advance(DAY_MS)
        assert.equal((await use()).status, 200, `day ${day}`)
      }
      clock.advance(SESSION_LIFETIME_MS - 29 * DAY_MS - 60_000)
      assert.equal((await use()).status, 200, 'a minute before the 30 days')
      clock.advance(60_000)
      const ended = await use()
      assert.equal(ended.status, 401, ended.text)
      assert.match([ended.headers['set-cookie'] ?? []].flat()[0] ?? '', /Max-Age=0/, 'the dead cookie is cleared')
      assert.equal((await use()).status, 401, 'and it stays ended')
      assert.equal((await signInRequest(s, { email: ada.email, password: ada.password })).status, 201, 'signing in again opens a new one')
    })
  })
}
