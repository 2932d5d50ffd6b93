import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { SCOPES } from '../accounts/roles.js'
import { SESSION_IDLE_MS } from './sessions.service.js'
import { SIGN_IN_FAILURES, SIGN_INS_PER_TOKEN } from './sign-in-limits.js'
import { movableClock } from '../../test/movable-clock.js'

const cookieOf = (setCookie: string[] | string | undefined) => {
  const header = [setCookie ?? []].flat()[0] ?? ''
  return { header, value: /^linkline_session=([^;]*)/.exec(header)?.[1] ?? '' }
}

for (const backend of backends) {
  describe(`sessions (${backend})`, () => {
    let s: TestServer
    const clock = movableClock()
    before(async () => {
      s = await startTestServer({ backend, container: { clock }, env: { LINKLINE_TRUST_PROXY: 'true' } })
    })
    after(() => s.close())

    const signIn = async (token: string, headers: Record<string, string> = {}) => {
      const res = await s.request('POST', '/v1/sessions', { token: null, json: { token }, headers })
      assert.equal(res.status, 201, res.text)
      return { res, cookie: `linkline_session=${cookieOf(res.headers['set-cookie']).value}` }
    }
    const origin = () => `http://${s.host}`

    test('a token is exchanged for an HttpOnly, SameSite=Strict cookie that acts as the token', async () => {
      const { res, cookie } = await signIn(s.token)
      const { header, value } = cookieOf(res.headers['set-cookie'])
      assert.match(value, /^[A-Za-z0-9_-]{43}$/)
      assert.match(header, /; Path=\//)
      assert.match(header, /; HttpOnly/)
      assert.match(header, /; SameSite=Strict/)
      assert.doesNotMatch(header, /Secure/, 'plain HTTP: no Secure flag')
      assert.equal(res.body.data.ownerId, 'alice')
      assert.ok(res.body.data.scopes.includes('links:write'))
      assert.doesNotMatch(res.text, new RegExp(s.token), 'the token is not echoed')

      const me = await s.request('GET', '/v1/sessions/current', { token: null, headers: { cookie } })
      assert.equal(me.status, 200)
      // A token's session: the token, and no person behind it (the test server's token is an operator's).
      assert.deepEqual(me.body.data, { ownerId: 'alice', scopes: [...SCOPES], tokenId: s.actorOf(s.token).id, userId: null, via: 'session' })
      const viaBearer = await s.request('GET', '/v1/sessions/current')
      assert.equal(viaBearer.body.data.via, 'bearer')
      const list = await s.request('GET', '/v1/links', { token: null, headers: { cookie } })
      assert.equal(list.status, 200)
    })

    test('over HTTPS (a trusted proxy says so) the cookie is Secure', async () => {
      const { res } = await signIn(s.token, { 'x-forwarded-proto': 'https' })
      assert.match(cookieOf(res.headers['set-cookie']).header, /; Secure/)
    })

    test('an unknown token is 401 naming the token; a session has the scopes of its token', async () => {
      const bad = await s.request('POST', '/v1/sessions', { token: null, json: { token: 'll_nope' } })
      assert.equal(bad.status, 401)
      assert.equal(bad.body.error.param, 'token')
      assert.equal(bad.headers['set-cookie'], undefined)

      const { cookie } = await signIn(await s.createToken('carol', ['links:read']))
      const read = await s.request('GET', '/v1/links', { token: null, headers: { cookie } })
      assert.equal(read.status, 200)
      const write = await s.request('POST', '/v1/links', { token: null, json: { destination: 'https://example.com' }, headers: { cookie, origin: origin() } })
      assert.equal(write.status, 403)
      assert.equal(write.body.error.code, 'forbidden')
    })

    test('a cookie-authenticated change needs an Origin of this host; bearer tokens do not', async () => {
      const { cookie } = await signIn(s.token)
      const body = { destination: 'https://example.com/origin' }
      const none = await s.request('POST', '/v1/links', { token: null, json: body, headers: { cookie } })
      assert.equal(none.status, 403)
      assert.equal(none.body.error.param, 'Origin')
      const other = await s.request('POST', '/v1/links', { token: null, json: body, headers: { cookie, origin: 'http://evil.example' } })
      assert.equal(other.status, 403)
      const opaque = await s.request('POST', '/v1/links', { token: null, json: body, headers: { cookie, origin: 'null' } })
      assert.equal(opaque.status, 403)
      const same = await s.request('POST', '/v1/links', { token: null, json: body, headers: { cookie, origin: origin() } })
      assert.equal(same.status, 201, same.text)
      const del = await s.request('DELETE', `/v1/links/${same.body.data.id}`, { token: null, headers: { cookie, origin: 'http://evil.example' } })
      assert.equal(del.status, 403)
      assert.equal((await s.request('GET', `/v1/links/${same.body.data.id}`)).status, 200, 'the refused delete changed nothing')
      // Reads need no Origin (a top-level navigation sends none).
      assert.equal((await s.request('GET', `/v1/links/${same.body.data.id}`, { token: null, headers: { cookie } })).status, 200)
      // A bearer token is what it was: no Origin asked for, the cookie beside it ignored.
      const bearer = await s.request('POST', '/v1/links', {
        json: { destination: 'https://example.com/bearer' },
        headers: { cookie: 'linkline_session=garbage-garbage-garbage' },
      })
      assert.equal(bearer.status, 201)
    })

    test('signing in from another site is refused (login CSRF); the dashboard and programs sign in', async () => {
      const form = { 'content-type': 'application/x-www-form-urlencoded' }
      for (const headers of [
        { origin: 'http://evil.example' } as Record<string, string>,
        { origin: 'null' },
        { origin: `http://${s.host}.evil.example` },
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
      ]) {
        const r = await s.request('POST', '/v1/sessions', { token: null, raw: `token=${s.token}`, headers: { ...form, ...headers } })
        assert.equal(r.status, 403, JSON.stringify(headers))
        assert.deepEqual([r.body.error.code, r.body.error.param], ['forbidden', 'Origin'])
        assert.equal(r.headers['set-cookie'], undefined, 'no session was opened')
      }
      await signIn(s.token, { origin: origin() })
      await signIn(s.token, { origin: `https://${s.host}` })
      await signIn(s.token, { 'sec-fetch-site': 'same-origin' })
      await signIn(s.token, { 'sec-fetch-site': 'none' })
      await signIn(s.token)
    })

    test('after 10 wrong tokens in 15 minutes an address cannot sign in (429), even with a valid token; others can', async () => {
      const from = (address: string, token: string) =>
        s.request('POST', '/v1/sessions', { token: null, json: { token }, headers: { 'x-forwarded-for': address } })
      for (let i = 0; i < SIGN_IN_FAILURES; i++) assert.equal((await from('203.0.113.10', `ll_guess-${i}`)).status, 401)
      for (const token of ['ll_guess-again', s.token]) {
        const limited = await from('203.0.113.10', token)
        assert.equal(limited.status, 429)
        assert.equal(limited.body.error.code, 'rate_limited')
        assert.ok(Number(limited.headers['retry-after']) > 60, 'the window is 15 minutes')
        assert.equal(limited.headers['set-cookie'], undefined)
      }
      const valid = await s.createToken('erin')
      assert.equal((await from('203.0.113.11', valid)).status, 201, 'another address')
      // Successes cost nothing from the failure budget.
      for (let i = 0; i < SIGN_IN_FAILURES + 1; i++) assert.equal((await from('203.0.113.12', valid)).status, 201)
    })

    test('one token opens at most 30 sessions in 15 minutes; then 429, and other tokens still sign in', async () => {
      const token = await s.createToken('dave')
      for (let i = 0; i < SIGN_INS_PER_TOKEN; i++) await signIn(token)
      const flood = await s.request('POST', '/v1/sessions', { token: null, json: { token } })
      assert.equal(flood.status, 429)
      assert.equal(flood.body.error.code, 'rate_limited')
      assert.ok(Number(flood.headers['retry-after']) > 0)
      assert.equal(flood.headers['set-cookie'], undefined, 'no session was opened')
      await signIn(await s.createToken('dave'))
    })

    test('a session ends after 7 days without use, and each use keeps it alive', async () => {
      const { cookie } = await signIn(s.token)
      const get = () => s.request('GET', '/v1/sessions/current', { token: null, headers: { cookie } })
      clock.advance(SESSION_IDLE_MS - 60_000)
      const used = await get()
      assert.equal(used.status, 200, 'used just before the limit')
      assert.match(cookieOf(used.headers['set-cookie']).header, /Max-Age=604800/, 'the cookie is renewed with the session')
      clock.advance(SESSION_IDLE_MS - 60_000)
      assert.equal((await get()).status, 200, 'the use moved the limit')
      clock.advance(SESSION_IDLE_MS)
      const expired = await get()
      assert.equal(expired.status, 401)
      assert.match(cookieOf(expired.headers['set-cookie']).header, /Max-Age=0/, 'the dead cookie is cleared')
      assert.equal((await get()).status, 401, 'and it stays ended')
      assert.equal((await s.request('GET', '/v1/sessions/current')).status, 200, 'the token itself still works')
    })

    test("an ended session's cookie is no use of its token: the token's lastUsedAt stays", async () => {
      const made = await s.request('POST', '/v1/tokens', { json: { name: 'left signed in' } })
      assert.equal(made.status, 201, made.text)
      const { cookie } = await signIn(made.body.data.token)
      const lastUsedAt = async () => (await s.request('GET', '/v1/tokens')).body.data.find((t: { id: string }) => t.id === made.body.data.id).lastUsedAt
      const signedInAt = await lastUsedAt()
      assert.notEqual(signedInAt, null, 'signing in used the token')
      clock.advance(SESSION_IDLE_MS + 60_000)
      assert.equal((await s.request('GET', '/v1/links', { token: null, headers: { cookie } })).status, 401)
      assert.equal(await lastUsedAt(), signedInAt)
    })

    test('revoking the token ends its sessions', async () => {
      const made = await s.request('POST', '/v1/tokens', { json: { name: 'laptop' } })
      assert.equal(made.status, 201)
      const { cookie } = await signIn(made.body.data.token)
      assert.equal((await s.request('GET', '/v1/links', { token: null, headers: { cookie } })).status, 200)
      assert.equal((await s.request('DELETE', `/v1/tokens/${made.body.data.id}`)).status, 200)
      assert.equal((await s.request('GET', '/v1/links', { token: null, headers: { cookie } })).status, 401)
    })

    test("signing out everywhere ends every session of the cookie's token; a bearer token ends its own", async () => {
      const token = await s.createToken('frank')
      const [one, two] = [(await signIn(token)).cookie, (await signIn(token)).cookie]
      const other = (await signIn(s.token)).cookie
      const status = async (cookie: string) => (await s.request('GET', '/v1/sessions/current', { token: null, headers: { cookie } })).status
      const crossSite = await s.request('DELETE', '/v1/sessions', { token: null, headers: { cookie: one, origin: 'http://evil.example' } })
      assert.equal(crossSite.status, 403)
      const out = await s.request('DELETE', '/v1/sessions', { token: null, headers: { cookie: one, origin: origin() } })
      assert.equal(out.status, 200, out.text)
      assert.equal(out.body.data.deleted, 2)
      assert.match(cookieOf(out.headers['set-cookie']).header, /^linkline_session=;.*Max-Age=0/)
      assert.deepEqual([await status(one), await status(two), await status(other)], [401, 401, 200])

      const three = (await signIn(token)).cookie
      const bearer = await s.request('DELETE', '/v1/sessions', { token })
      assert.equal(bearer.status, 200, bearer.text)
      assert.equal(bearer.body.data.deleted, 1)
      assert.equal(bearer.headers['set-cookie'], undefined, 'no cookie to clear')
      assert.equal(await status(three), 401)
      assert.equal((await s.request('GET', '/v1/links', { token })).status, 200, 'the token itself still works')
      assert.equal((await s.request('DELETE', '/v1/sessions', { token: null })).status, 401, 'nothing to sign out of')
    })

    test('signing out ends the session and clears the cookie; with a bearer token there is no session to end', async () => {
      const { cookie } = await signIn(s.token)
      const crossSite = await s.request('DELETE', '/v1/sessions/current', { token: null, headers: { cookie } })
      assert.equal(crossSite.status, 403)
      const out = await s.request('DELETE', '/v1/sessions/current', { token: null, headers: { cookie, origin: origin() } })
      assert.equal(out.status, 200)
      assert.match(cookieOf(out.headers['set-cookie']).header, /^linkline_session=;.*Max-Age=0/)
      assert.equal((await s.request('GET', '/v1/sessions/current', { token: null, headers: { cookie } })).status, 401)
      const bearer = await s.request('DELETE', '/v1/sessions/current')
      assert.equal(bearer.status, 404)
      assert.equal((await s.request('GET', '/v1/links')).status, 200, 'the token still works')
    })
  })
}
