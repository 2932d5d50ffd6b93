import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { movableClock } from '../../test/movable-clock.js'
import { PASSWORD, sessionCookieOf, signedInPerson as person, signInHeaders as signIn, type SignedInPerson as Person } from '../../test/people.js'
import type { InvitationNotice } from './invitations.service.js'
import { INVITATION_TTL_MS } from './one-time-links.service.js'

const SECRET_URL = /\/app\/invite\/([A-Za-z0-9_-]{43})$/

for (const backend of backends) {
  describe(`invitations (${backend})`, () => {
    let s: TestServer
    const clock = movableClock()
    const notices: InvitationNotice[] = []
    let admin: Person
    let owner: Person
    before(async () => {
      s = await startTestServer({ backend, container: { clock, notifyInvitation: (n) => notices.push(n) }, env: { LINKLINE_TRUST_PROXY: 'true' } })
      owner = await person(s, 'olga@example.com', 'alice', 'owner')
      admin = await person(s, 'adam@example.com', 'alice', 'admin')
    })
    after(() => s.close())

    const invite = async (email: string, role = 'member', token = s.token) => {
      const res = await s.request('POST', '/v1/invitations', { token, json: { email, role } })
      assert.equal(res.status, 201, res.text)
      return { ...res.body.data, secret: SECRET_URL.exec(res.body.data.url)?.[1] as string }
    }
    const accept = (json: Record<string, unknown>, headers: Record<string, string> = {}) =>
      s.request('POST', '/v1/invitations/accept', { token: null, json, headers })
    const oneTimeLinks = () => s.container.storage.db.selectFrom('one_time_links').selectAll().execute()

    test('an invitation is a 256-bit link to /app/invite/, valid 7 days, shown once and stored only as its SHA-256', async () => {
      const before = clock.now()
      const res = await s.request('POST', '/v1/invitations', { json: { email: ' Nina@Example.com ', role: 'member' } })
      assert.equal(res.status, 201, res.text)
      const { id, email, role, url, expiresAt, workspaceId, createdBy } = res.body.data
      assert.match(id, /^inv_[0-9A-Z]{26}$/)
      assert.deepEqual([email, role, workspaceId, createdBy.type], ['Nina@Example.com', 'member', 'alice', 'token'])
      assert.match(url, new RegExp(`^http://${s.host}/app/invite/[A-Za-z0-9_-]{43}$`), 'base from the request (no public URL set)')
      const secret = SECRET_URL.exec(url)![1]!
      assert.equal(Buffer.from(secret, 'base64url').length, 32)
      const expires = Date.parse(expiresAt) - before
      assert.ok(expires >= INVITATION_TTL_MS && expires < INVITATION_TTL_MS + 5_000, `${expires}`)

      const rows = await oneTimeLinks()
      const row = rows.find((r) => r.id === id)!
      assert.equal(row.secret_hash, createHash('sha256').update(secret).digest('hex'))
      assert.ok(!JSON.stringify(rows).includes(secret), 'the secret is stored nowhere in plain')

      const list = await s.request('GET', '/v1/invitations')
      assert.equal(list.status, 200)
      const listed = list.body.data.find((i: { id: string }) => i.id === id)
      assert.deepEqual(Object.keys(listed).sort(), ['createdAt', 'createdBy', 'email', 'expiresAt', 'id', 'role', 'workspaceId'])
      assert.ok(!list.text.includes(secret))

      const notice = notices.find((n) => n.id === id)
      assert.deepEqual([notice?.url, notice?.email, notice?.workspaceName], [url, 'Nina@Example.com', 'alice'], 'the mail hook hears of it')
    })

    test('behind a trusted proxy the link carries the scheme and host the client used', async () => {
      const res = await s.request('POST', '/v1/invitations', {
        json: { email: 'proxied@example.com', role: 'viewer' },
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'links.example' },
      })
      assert.match(res.body.data.url, /^https:\/\/links\.example\/app\/invite\//)
    })

    test('creating: 400 names the parameter, 403 without members:write or for an owner invited by an admin, 409 for a member', async () => {
      for (const [json, param] of [
        [{ role: 'member' }, 'email'],
        [{ email: 'not-an-email', role: 'member' }, 'email'],
        [{ email: 'x@example.com' }, 'role'],
        [{ email: 'x@example.com', role: 'emperor' }, 'role'],
        [{ email: 'x@example.com', role: 'member', extra: 1 }, 'extra'],
      ] as const) {
        const res = await s.request('POST', '/v1/invitations', { json })
        assert.deepEqual([res.status, res.body.error.code, res.body.error.param], [400, 'validation_error', param], JSON.stringify(json))
      }
      const reader = await s.createToken('alice', ['members:read'])
      const noScope = await s.request('POST', '/v1/invitations', { token: reader, json: { email: 'x@example.com', role: 'member' } })
      assert.deepEqual([noScope.status, noScope.body.error.code], [403, 'forbidden'])
      assert.equal((await s.request('GET', '/v1/invitations', { token: reader })).status, 200, 'members:read lists them')

      const byAdmin = await s.request('POST', '/v1/invitations', { token: null, headers: admin.headers, json: { email: 'boss@example.com', role: 'owner' } })
      assert.deepEqual([byAdmin.status, byAdmin.body.error.param], [403, 'role'])
      const adminInvitesAdmin = await s.request('POST', '/v1/invitations', {
        token: null,
        headers: admin.headers,
        json: { email: 'peer@example.com', role: 'admin' },
      })
      assert.equal(adminInvitesAdmin.status, 201)
      assert.deepEqual(adminInvitesAdmin.body.data.createdBy, { type: 'user', id: admin.id, label: admin.email })
      const byOwner = await s.request('POST', '/v1/invitations', { token: null, headers: owner.headers, json: { email: 'boss@example.com', role: 'owner' } })
      assert.equal(byOwner.status, 201)

      const member = await s.request('POST', '/v1/invitations', { json: { email: 'ADAM@example.com', role: 'viewer' } })
      assert.deepEqual([member.status, member.body.error.code, member.body.error.param], [409, 'conflict', 'email'])
    })

    test('a new invitation to the same email replaces the pending one; a revoked one is 410 and no longer listed', async () => {
      const first = await invite('twice@example.com', 'viewer')
      const second = await invite('Twice@example.com', 'member')
      const pending = (await s.request('GET', '/v1/invitations')).body.data.filter((i: { email: string }) => i.email.toLowerCase() === 'twice@example.com')
      assert.deepEqual(
        pending.map((i: { id: string }) => i.id),
        [second.id],
      )
      const old = await accept({ secret: first.secret, name: 'Tw', password: PASSWORD })
      assert.deepEqual([old.status, old.body.error.code, old.body.error.param], [410, 'gone', 'secret'])

      const deleted = await s.request('DELETE', `/v1/invitations/${second.id}`)
      assert.deepEqual([deleted.status, deleted.body.data], [200, { id: second.id, deleted: true }])
      assert.ok(!(await s.request('GET', '/v1/invitations')).body.data.some((i: { id: string }) => i.id === second.id))
      assert.equal((await accept({ secret: second.secret, name: 'Tw', password: PASSWORD })).status, 410)
      assert.equal((await s.request('DELETE', `/v1/invitations/${second.id}`)).status, 404, 'revoked already')

      const elsewhere = await invite('bob-only@example.com', 'member', await s.createToken('bob'))
      const foreign = await s.request('DELETE', `/v1/invitations/${elsewhere.id}`)
      assert.deepEqual([foreign.status, foreign.body.error.code], [404, 'not_found'], "another workspace's invitation")
      assert.equal((await s.request('DELETE', '/v1/invitations/inv_unknown')).status, 404)
      assert.equal((await s.request('DELETE', `/v1/invitations/${elsewhere.id}`, { token: null })).status, 401)
    })

    test('accepting with name and password creates the person with the invited role and signs in; a second use is 410', async () => {
      const inv = await invite('newbie@example.com', 'admin')
      const res = await accept({ secret: inv.secret, name: ' Newbie ', password: PASSWORD }, { origin: `http://${s.host}` })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual([res.body.data.ownerId, res.body.data.via, res.body.data.tokenId], ['alice', 'session', null])
      assert.ok(res.body.data.scopes.includes('members:write'), 'an admin')
      const cookie = sessionCookieOf(res.headers['set-cookie'])
      assert.match(String(res.headers['set-cookie']), /HttpOnly; SameSite=Strict/)
      const me = await s.request('GET', '/v1/me', { token: null, headers: { cookie } })
      assert.deepEqual([me.body.data.user.email, me.body.data.user.name, me.body.data.principal.role], ['newbie@example.com', 'Newbie', 'admin'])
      assert.deepEqual(me.body.data.memberships, [{ workspaceId: 'alice', workspaceName: 'alice', role: 'admin' }])
      await signIn(s, 'newbie@example.com')

      const again = await accept({ secret: inv.secret, name: 'Other', password: PASSWORD })
      assert.deepEqual([again.status, again.body.error.code], [410, 'gone'])
      assert.ok(!(await s.request('GET', '/v1/invitations')).body.data.some((i: { id: string }) => i.id === inv.id), 'used: no longer pending')
    })

    test('accepting: 400 names the parameter; an unknown or expired secret is 410 like a used one; an existing account is 409', async () => {
      const inv = await invite('checks@example.com')
      for (const [json, param] of [
        [{ name: 'N', password: PASSWORD }, 'secret'],
        [{ secret: inv.secret, name: 'N', password: 'short' }, 'password'],
        [{ secret: inv.secret, name: 'N', password: 'x'.repeat(1025) }, 'password'],
        [{ secret: inv.secret, password: PASSWORD }, 'name'],
        [{ secret: inv.secret, name: '   ', password: PASSWORD }, 'name'],
        [{ secret: inv.secret, name: 'n'.repeat(101), password: PASSWORD }, 'name'],
        [{ secret: inv.secret, name: 'N' }, 'password'],
        [{ secret: inv.secret }, 'password'],
        [{ secret: inv.secret, role: 'owner' }, 'role'],
      ] as const) {
        const res = await accept(json)
        assert.deepEqual([res.status, res.body.error.code, res.body.error.param], [400, 'validation_error', param], JSON.stringify(json))
      }
      const unknown = await accept({ secret: 'A'.repeat(43), name: 'N', password: PASSWORD })
      assert.deepEqual([unknown.status, unknown.body.error.code, unknown.body.error.param], [410, 'gone', 'secret'])

      const existing = await invite('adam@example.com', 'member', await s.createToken('carol'))
      const conflict = await accept({ secret: existing.secret, name: 'Adam', password: PASSWORD })
      assert.deepEqual([conflict.status, conflict.body.error.code], [409, 'conflict'])
      assert.match(conflict.body.error.message, /sign in/)

      const late = await invite('late@example.com')
      clock.advance(INVITATION_TTL_MS + 1)
      try {
        const expired = await accept({ secret: late.secret, name: 'Late', password: PASSWORD })
        assert.deepEqual([expired.status, expired.body.error.code], [410, 'gone'])
        assert.ok(!(await s.request('GET', '/v1/invitations')).body.data.some((i: { id: string }) => i.id === late.id), 'expired: not listed')
      } finally {
        clock.advance(-INVITATION_TTL_MS - 1)
      }
      const fresh = await accept({ secret: inv.secret, name: 'Checks', password: PASSWORD })
      assert.equal(fresh.status, 201, 'the refused attempts left the invitation usable')
    })

    test('signed in, the secret alone adds the membership to the person it names and moves them to a new session there', async () => {
      const bob = await person(s, 'bob@example.com', 'bob', 'owner')
      const inv = await invite('BOB@example.com', 'viewer')

      const noOrigin = await accept({ secret: inv.secret }, { cookie: bob.headers.cookie! })
      assert.deepEqual([noOrigin.status, noOrigin.body.error.param], [403, 'Origin'])
      const crossSite = await accept({ secret: inv.secret }, { ...bob.headers, origin: 'http://evil.example' })
      assert.deepEqual([crossSite.status, crossSite.body.error.param], [403, 'Origin'])
      const someoneElse = await accept({ secret: inv.secret }, admin.headers)
      assert.deepEqual([someoneElse.status, someoneElse.body.error.code, someoneElse.body.error.param], [403, 'forbidden', 'secret'])
      const tokenSession = await s.request('POST', '/v1/sessions', { token: null, json: { token: await s.createToken('bob') } })
      const viaToken = await accept({ secret: inv.secret }, { cookie: sessionCookieOf(tokenSession.headers['set-cookie']), origin: `http://${s.host}` })
      assert.deepEqual([viaToken.status, viaToken.body.error.param], [400, 'password'], "a token's session is nobody's to join with")

      const res = await accept({ secret: inv.secret }, bob.headers)
      assert.equal(res.status, 201, res.text)
      assert.deepEqual([res.body.data.ownerId, res.body.data.userId], ['alice', bob.id])
      const cookie = sessionCookieOf(res.headers['set-cookie'])
      assert.notEqual(cookie, bob.headers.cookie)
      assert.equal((await s.request('GET', '/v1/me', { token: null, headers: bob.headers })).status, 401, 'the old session ended')
      const me = await s.request('GET', '/v1/me', { token: null, headers: { cookie } })
      assert.deepEqual(
        me.body.data.memberships.map((m: { workspaceId: string; role: string }) => `${m.workspaceId}:${m.role}`),
        ['alice:viewer', 'bob:owner'],
      )
      assert.equal((await accept({ secret: inv.secret }, { cookie, origin: `http://${s.host}` })).status, 410)

      const twice = await invite('dora@example.com', 'member')
      const dora = await person(s, 'dora@example.com', 'alice', 'viewer')
      const member = await accept({ secret: twice.secret }, dora.headers)
      assert.deepEqual([member.status, member.body.error.code], [409, 'conflict'], 'a member already')
      assert.ok(
        (await s.request('GET', '/v1/invitations')).body.data.some((i: { id: string }) => i.id === twice.id),
        'and the invitation was not used',
      )
    })

    test('accepting is refused from another site, needs no token, and of racing accepts exactly one creates the account', async () => {
      const inv = await invite('race@example.com')
      const cross = await accept({ secret: inv.secret, name: 'R', password: PASSWORD }, { origin: 'http://evil.example' })
      assert.deepEqual([cross.status, cross.body.error.param], [403, 'Origin'])

      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => accept({ secret: inv.secret, name: `Racer ${i}`, password: PASSWORD })))
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 410, 410, 410, 410, 410], results.map((r) => r.text).join('\n'))
      const users = await s.container.storage.db.selectFrom('users').select('id').where('email_key', '=', 'race@example.com').execute()
      assert.equal(users.length, 1)
      const memberships = await s.container.storage.db.selectFrom('memberships').select('role').where('user_id', '=', users[0]!.id).execute()
      assert.deepEqual(memberships, [{ role: 'member' }])
    })
  })
}
