import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { movableClock } from '../../test/movable-clock.js'
import { PASSWORD, sessionCookieOf, signedInPerson as person, signInHeaders as signIn, type SignedInPerson as Person } from '../../test/people.js'
import { SIGN_IN_FAILURES } from '../sessions/sign-in-limits.js'
import { PASSWORD_RESET_TTL_MS, SETUP_TTL_MS } from './one-time-links.service.js'

const NEW_PASSWORD = 'another long password'
const secretOf = (url: string) => /\/app\/(?:reset\/|setup\?code=)([A-Za-z0-9_-]{43})$/.exec(url)?.[1] as string

for (const backend of backends) {
  describe(`password resets, password changes and the setup link (${backend})`, () => {
    let s: TestServer
    const clock = movableClock()
    let owner: Person
    let admin: Person
    before(async () => {
      s = await startTestServer({ backend, container: { clock }, env: { LINKLINE_TRUST_PROXY: 'true' } })
      owner = await person(s, 'owner@example.com', 'alice', 'owner')
      admin = await person(s, 'admin@example.com', 'alice', 'admin')
    })
    after(() => s.close())

    const resetLink = async (userId: string, headers?: Record<string, string>) => {
      const res = await s.request('POST', `/v1/members/${userId}/password-reset`, headers ? { token: null, headers } : {})
      assert.equal(res.status, 201, res.text)
      return { ...res.body.data, secret: secretOf(res.body.data.url) }
    }
    const reset = (json: Record<string, unknown>, headers: Record<string, string> = {}) =>
      s.request('POST', '/v1/password-reset', { token: null, json, headers })
    const signInStatus = async (email: string, password: string) => (await s.request('POST', '/v1/sessions', { token: null, json: { email, password } })).status
    const me = (headers: Record<string, string>) => s.request('GET', '/v1/me', { token: null, headers })

    test('a reset link (1 hour, stored hashed) sets the password once and ends every session of that person', async () => {
      const mia = await person(s, 'mia@example.com', 'alice', 'member')
      const other = await signIn(s, 'mia@example.com')
      const before = clock.now()
      const link = await resetLink(mia.id, admin.headers)
      assert.match(link.url, new RegExp(`^http://${s.host}/app/reset/[A-Za-z0-9_-]{43}$`))
      const ttl = Date.parse(link.expiresAt) - before
      assert.ok(ttl >= PASSWORD_RESET_TTL_MS && ttl < PASSWORD_RESET_TTL_MS + 5_000, `${ttl}`)
      const row = await s.container.storage.db.selectFrom('one_time_links').selectAll().where('user_id', '=', mia.id).executeTakeFirstOrThrow()
      assert.deepEqual([row.kind, row.secret_hash, row.created_by_id], ['password_reset', createHash('sha256').update(link.secret).digest('hex'), admin.id])

      const done = await reset({ secret: link.secret, password: NEW_PASSWORD }, { origin: `http://${s.host}` })
      assert.equal(done.status, 200, done.text)
      assert.deepEqual(done.body.data, { userId: mia.id, email: 'mia@example.com' })
      for (const headers of [mia.headers, other]) assert.equal((await me(headers)).status, 401, 'every session ended')
      assert.equal(await signInStatus('mia@example.com', PASSWORD), 401)
      assert.equal(await signInStatus('mia@example.com', NEW_PASSWORD), 201)

      const again = await reset({ secret: link.secret, password: 'yet another password' })
      assert.deepEqual([again.status, again.body.error.code, again.body.error.param], [410, 'gone', 'secret'])
      assert.equal(await signInStatus('mia@example.com', NEW_PASSWORD), 201, 'the second use changed nothing')
    })

    test('reset links: 404 beyond the workspace, 403 for an owner unless an owner asks, and only the newest works', async () => {
      const bob = await person(s, 'bob@example.com', 'bob', 'owner')
      const foreign = await s.request('POST', `/v1/members/${bob.id}/password-reset`)
      assert.deepEqual([foreign.status, foreign.body.error.code, foreign.body.error.param], [404, 'not_found', 'userId'])
      assert.equal((await s.request('POST', '/v1/members/usr_nobody/password-reset')).status, 404)
      const byAdmin = await s.request('POST', `/v1/members/${owner.id}/password-reset`, { token: null, headers: admin.headers })
      assert.deepEqual([byAdmin.status, byAdmin.body.error.code, byAdmin.body.error.param], [403, 'forbidden', 'userId'])
      const reader = await s.createToken('alice', ['members:read'])
      assert.equal((await s.request('POST', `/v1/members/${admin.id}/password-reset`, { token: reader })).status, 403)
      const viewer = await person(s, 'vic@example.com', 'alice', 'viewer')
      assert.equal((await s.request('POST', `/v1/members/${admin.id}/password-reset`, { token: null, headers: viewer.headers })).status, 403)

      const first = await resetLink(owner.id, owner.headers)
      const second = await resetLink(owner.id)
      assert.equal((await reset({ secret: first.secret, password: NEW_PASSWORD })).status, 410, 'replaced by the newer link')
      const expiring = await resetLink(admin.id)
      clock.advance(PASSWORD_RESET_TTL_MS)
      try {
        const expired = await reset({ secret: expiring.secret, password: NEW_PASSWORD })
        assert.deepEqual([expired.status, expired.body.error.code], [410, 'gone'])
      } finally {
        clock.advance(-PASSWORD_RESET_TTL_MS)
      }
      for (const [json, param] of [
        [{ password: NEW_PASSWORD }, 'secret'],
        [{ secret: second.secret }, 'password'],
        [{ secret: second.secret, password: 'short' }, 'password'],
        [{ secret: second.secret, password: NEW_PASSWORD, email: 'x@example.com' }, 'email'],
      ] as const) {
        const res = await reset(json)
        assert.deepEqual([res.status, res.body.error.param], [400, param], JSON.stringify(json))
      }
      assert.equal((await reset({ secret: 'B'.repeat(43), password: NEW_PASSWORD })).status, 410, 'unknown: as a used one')
      const cross = await reset({ secret: second.secret, password: NEW_PASSWORD }, { origin: 'http://evil.example' })
      assert.deepEqual([cross.status, cross.body.error.param], [403, 'Origin'])
      assert.equal((await reset({ secret: second.secret, password: NEW_PASSWORD })).status, 200, 'an owner resets an owner')
      owner = { ...owner, headers: await signIn(s, owner.email, NEW_PASSWORD) }
    })

    test('a signed-in person changes their password with the current one; their other sessions end, this one stays', async () => {
      const pat = await person(s, 'pat@example.com', 'alice', 'member')
      const elsewhere = await signIn(s, 'pat@example.com')
      const change = (json: Record<string, unknown>, headers: Record<string, string> = pat.headers, token: string | null = null) =>
        s.request('POST', '/v1/me/password', { token, json, headers })

      const wrong = await change({ currentPassword: 'not the password', password: NEW_PASSWORD })
      assert.deepEqual([wrong.status, wrong.body.error.code, wrong.body.error.param], [401, 'unauthorized', 'currentPassword'])
      assert.equal((await me(pat.headers)).status, 200, 'a wrong current password does not sign out')
      assert.deepEqual(
        [(await change({ password: NEW_PASSWORD })).body.error.param, (await change({ currentPassword: PASSWORD, password: 'short' })).body.error.param],
        ['currentPassword', 'password'],
      )
      const byToken = await change({ currentPassword: PASSWORD, password: NEW_PASSWORD }, {})
      assert.deepEqual([byToken.status, byToken.body.error.code], [401, 'unauthorized'], 'no credentials')
      const bearer = await change({ currentPassword: PASSWORD, password: NEW_PASSWORD }, {}, s.token)
      assert.deepEqual([bearer.status, bearer.body.error.code], [403, 'forbidden'], 'a token has no password')

      const res = await change({ currentPassword: PASSWORD, password: NEW_PASSWORD })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body.data, { changed: true, sessionsEnded: 1 })
      assert.equal((await me(pat.headers)).status, 200, 'this session stays')
      assert.equal((await me(elsewhere)).status, 401, 'the other one ended')
      assert.equal(await signInStatus('pat@example.com', NEW_PASSWORD), 201)
    })

    test('wrong current passwords count as failed sign-ins from that address', async () => {
      const quinn = await person(s, 'quinn@example.com', 'alice', 'member')
      const headers = { ...quinn.headers, 'x-forwarded-for': '198.51.100.23' }
      for (let i = 0; i < SIGN_IN_FAILURES; i++) {
        const r = await s.request('POST', '/v1/me/password', { token: null, headers, json: { currentPassword: `wrong ${i}`, password: NEW_PASSWORD } })
        assert.equal(r.status, 401)
      }
      const limited = await s.request('POST', '/v1/me/password', { token: null, headers, json: { currentPassword: PASSWORD, password: NEW_PASSWORD } })
      assert.deepEqual([limited.status, limited.body.error.code], [429, 'rate_limited'])
    })

    test('a setup link creates the first owner of a workspace without members and signs in, once; then it is 410', async () => {
      const base = `http://${s.host}`
      const link = await s.container.setup.issue('fresh', base)
      const spare = await s.container.setup.issue('fresh', base)
      assert.match(link.url, new RegExp(`^${base}/app/setup\\?code=[A-Za-z0-9_-]{43}$`))
      const setup = (json: Record<string, unknown>, headers: Record<string, string> = {}) => s.request('POST', '/v1/setup', { token: null, json, headers })
      const body = { code: secretOf(link.url), email: 'first@example.com', name: 'First', password: PASSWORD }

      for (const [json, param] of [
        [{ ...body, email: 'nope' }, 'email'],
        [{ ...body, password: 'short' }, 'password'],
        [{ ...body, name: '' }, 'name'],
        [{ email: body.email, name: body.name, password: PASSWORD }, 'code'],
      ] as const) {
        const res = await setup(json)
        assert.deepEqual([res.status, res.body.error.param], [400, param], JSON.stringify(json))
      }
      assert.deepEqual([(await setup({ ...body, code: 'C'.repeat(43) })).status], [410])
      assert.equal((await setup(body, { origin: 'http://evil.example' })).status, 403)
      assert.equal((await setup({ ...body, email: 'OWNER@example.com' })).status, 409, 'an email that has an account')

      const res = await setup(body, { origin: base })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual([res.body.data.ownerId, res.body.data.via], ['fresh', 'session'])
      const session = await me({ cookie: sessionCookieOf(res.headers['set-cookie']) })
      assert.deepEqual([session.body.data.user.email, session.body.data.principal.role], ['first@example.com', 'owner'])

      const again = await setup({ ...body, email: 'second@example.com' })
      assert.deepEqual([again.status, again.body.error.code, again.body.error.param], [410, 'gone', 'code'])
      const other = await setup({ ...body, code: secretOf(spare.url), email: 'second@example.com' })
      assert.equal(other.status, 410, 'every setup link of the workspace is spent with the first used')

      const late = await s.container.setup.issue('later', base)
      clock.advance(SETUP_TTL_MS)
      try {
        assert.equal((await setup({ ...body, code: secretOf(late.url), email: 'late@example.com' })).status, 410, 'expired after 24 hours')
      } finally {
        clock.advance(-SETUP_TTL_MS)
      }
      const taken = await s.container.setup.issue('alice', base)
      const refused = await setup({ ...body, code: secretOf(taken.url), email: 'intruder@example.com' })
      assert.deepEqual([refused.status, refused.body.error.code], [410, 'gone'], 'a workspace with members has its owner')
      assert.equal(await s.container.setup.needed('alice'), false)
    })
  })
}
