import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { asBrowser, person, signIn, type Person } from '../../test/people.js'
import type { Role } from './roles.js'

for (const backend of backends) {
  describe(`members of a workspace (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend })
    })
    after(() => s.close())

    /** A workspace with one person of each role, each signed in. */
    const team = async (workspaceId: string) => {
      const people = {} as Record<Role, Person & { cookie: string }>
      for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
        const p = await person(s, workspaceId, role)
        people[role] = { ...p, cookie: await signIn(s, p) }
      }
      return people
    }
    const patch = (cookie: string, userId: string, role: string) => s.request('PATCH', `/v1/members/${userId}`, asBrowser(s, cookie, { json: { role } }))
    const remove = (cookie: string, userId: string) => s.request('DELETE', `/v1/members/${userId}`, asBrowser(s, cookie))
    const roles = async (cookie: string) =>
      Object.fromEntries(
        ((await s.request('GET', '/v1/members', asBrowser(s, cookie))).body.data as { userId: string; role: string }[]).map((m) => [m.userId, m.role]),
      )

    test('GET /v1/members lists every member with their role, to any member', async () => {
      const t = await team('list')
      const outsider = await person(s, 'list-other', 'owner')
      const res = await s.request('GET', '/v1/members', asBrowser(s, t.viewer.cookie))
      assert.equal(res.status, 200, res.text)
      const emails = [t.admin, t.member, t.owner, t.viewer].map((p) => p.email).sort()
      assert.deepEqual(
        res.body.data.map((m: { email: string }) => m.email),
        emails,
        'by email, and no one from another workspace',
      )
      const owner = res.body.data.find((m: { userId: string }) => m.userId === t.owner.id)
      assert.deepEqual(Object.keys(owner).sort(), ['createdAt', 'email', 'lastSignInAt', 'name', 'role', 'userId'])
      assert.deepEqual([owner.email, owner.name, owner.role], [t.owner.email, 'owner', 'owner'])
      assert.ok(Date.parse(owner.createdAt) > 0)
      assert.ok(Date.parse(owner.lastSignInAt) >= Date.parse(owner.createdAt), 'they signed in')
      assert.ok(!res.body.data.some((m: { userId: string }) => m.userId === outsider.id))
      assert.deepEqual(await roles(t.member.cookie), { [t.owner.id]: 'owner', [t.admin.id]: 'admin', [t.member.id]: 'member', [t.viewer.id]: 'viewer' })
    })

    test('an admin changes roles below owner; the change shows at once', async () => {
      const t = await team('patch')
      const res = await patch(t.admin.cookie, t.member.id, 'viewer')
      assert.equal(res.status, 200, res.text)
      assert.deepEqual([res.body.data.userId, res.body.data.email, res.body.data.role], [t.member.id, t.member.email, 'viewer'])
      const put = await s.request('PUT', `/v1/members/${t.viewer.id}`, asBrowser(s, t.admin.cookie, { json: { role: 'admin' } }))
      assert.equal(put.status, 200, put.text)
      assert.deepEqual(await roles(t.owner.cookie), { [t.owner.id]: 'owner', [t.admin.id]: 'admin', [t.member.id]: 'viewer', [t.viewer.id]: 'admin' })
      const bad = await patch(t.admin.cookie, t.member.id, 'superuser')
      assert.equal(bad.status, 400)
      assert.deepEqual([bad.body.error.code, bad.body.error.param], ['validation_error', 'role'])
    })

    test('an admin neither grants nor takes owner (403); an owner does both', async () => {
      const t = await team('owners')
      for (const [userId, role] of [
        [t.member.id, 'owner'],
        [t.admin.id, 'owner'],
        [t.owner.id, 'admin'],
      ] as const) {
        const res = await patch(t.admin.cookie, userId, role)
        assert.equal(res.status, 403, `${role}: ${res.text}`)
        assert.deepEqual([res.body.error.code, res.body.error.param], ['forbidden', 'role'])
      }
      const removeOwner = await remove(t.admin.cookie, t.owner.id)
      assert.equal(removeOwner.status, 403, 'nor removes an owner')
      assert.equal((await roles(t.owner.cookie))[t.owner.id], 'owner', 'nothing changed')

      assert.equal((await patch(t.owner.cookie, t.admin.id, 'owner')).status, 200)
      const demoted = await patch(t.admin.cookie, t.owner.id, 'member')
      assert.equal(demoted.status, 200, 'the new owner takes owner from the first')
      assert.equal((await roles(t.viewer.cookie))[t.owner.id], 'member')
    })

    test('the last owner can be neither demoted nor removed (409), even by themselves', async () => {
      const t = await team('last')
      for (const res of [await patch(t.owner.cookie, t.owner.id, 'admin'), await remove(t.owner.cookie, t.owner.id)]) {
        assert.equal(res.status, 409, res.text)
        assert.equal(res.body.error.code, 'conflict')
      }
      assert.equal((await patch(t.owner.cookie, t.owner.id, 'owner')).status, 200, 'keeping owner is no change')
      assert.equal((await patch(t.owner.cookie, t.member.id, 'owner')).status, 200)
      assert.equal((await patch(t.owner.cookie, t.owner.id, 'viewer')).status, 200, 'with a second owner, the first steps down')
      const res = await remove(t.member.cookie, t.member.id)
      assert.equal(res.status, 409, 'and the second is now the last')
    })

    test('two owners demoting each other at once leave one owner', async () => {
      for (let round = 0; round < 3; round++) {
        const t = await team(`race-${round}`)
        assert.equal((await patch(t.owner.cookie, t.admin.id, 'owner')).status, 200)
        const answers = await Promise.all([patch(t.owner.cookie, t.admin.id, 'admin'), patch(t.admin.cookie, t.owner.id, 'admin')])
        // The loser is refused either way: no longer an owner itself (403), or the other is now the last (409).
        const [won, lost] = answers[0]?.status === 200 ? answers : [...answers].reverse()
        assert.equal(won?.status, 200, won?.text)
        assert.ok(lost?.status === 403 || lost?.status === 409, lost?.text)
        const owners = Object.values(await roles(t.viewer.cookie)).filter((r) => r === 'owner')
        assert.equal(owners.length, 1)
      }
    })

    test('removing a member ends their sessions in that workspace and revokes the tokens they made there; elsewhere they stay', async () => {
      const t = await team('remove')
      // She is also in a second workspace (its name sorts after: she signs in to 'remove' first).
      await s.container.accounts.join(t.admin.id, 'remove-other', 'member')
      const elsewhere = await signIn(s, t.admin)
      assert.equal((await s.request('PUT', '/v1/sessions/current', asBrowser(s, elsewhere, { json: { workspaceId: 'remove-other' } }))).status, 200)
      const made = await s.request('POST', '/v1/tokens', asBrowser(s, t.admin.cookie, { json: { name: 'her script' } }))
      assert.equal(made.status, 201, made.text)
      const token = made.body.data.token as string
      assert.equal((await s.request('GET', '/v1/links', { token })).status, 200)

      const res = await remove(t.owner.cookie, t.admin.id)
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body.data, { userId: t.admin.id, deleted: true })

      const here = await s.request('GET', '/v1/me', asBrowser(s, t.admin.cookie))
      assert.equal(here.status, 401, 'her session in that workspace ended')
      assert.equal((await s.request('GET', '/v1/links', { token })).status, 401, 'her token is revoked')
      const tokens = await s.request('GET', '/v1/tokens', asBrowser(s, t.owner.cookie))
      assert.ok(!tokens.body.data.some((k: { id: string }) => k.id === made.body.data.id), 'and no longer listed')
      const other = await s.request('GET', '/v1/me', asBrowser(s, elsewhere))
      assert.equal(other.status, 200, 'her session in the other workspace lives on')
      assert.deepEqual(other.body.data.memberships, [{ workspaceId: 'remove-other', workspaceName: 'remove-other', role: 'member' }])
      assert.ok(!(t.admin.id in (await roles(t.owner.cookie))))
      assert.equal((await patch(t.owner.cookie, t.admin.id, 'admin')).status, 404, 'she is no member to change')
      const again = await signIn(s, t.admin)
      const me = await s.request('GET', '/v1/me', asBrowser(s, again))
      assert.equal(me.body.data.principal.workspaceId, 'remove-other', 'signing in again lands where she still belongs')
    })

    test('an unknown person, or a member of another workspace, is 404 on userId', async () => {
      const t = await team('unknown')
      const stranger = await person(s, 'unknown-other', 'member')
      for (const userId of ['usr_01ZZZZZZZZZZZZZZZZZZZZZZZZ', stranger.id]) {
        for (const res of [await patch(t.owner.cookie, userId, 'viewer'), await remove(t.owner.cookie, userId)]) {
          assert.equal(res.status, 404, res.text)
          assert.deepEqual([res.body.error.code, res.body.error.param], ['not_found', 'userId'])
        }
      }
      const stays = await signIn(s, stranger)
      assert.equal((await s.request('GET', '/v1/me', asBrowser(s, stays))).body.data.principal.role, 'member', 'the stranger is untouched')
    })

    test('a viewer or a member cannot change or remove members (403 members:write)', async () => {
      const t = await team('readonly')
      for (const cookie of [t.viewer.cookie, t.member.cookie]) {
        for (const res of [await patch(cookie, t.viewer.id, 'admin'), await remove(cookie, t.viewer.id)]) {
          assert.equal(res.status, 403, res.text)
          assert.equal(res.body.error.code, 'forbidden')
          assert.match(res.body.error.message, /members:write/)
        }
      }
      assert.equal((await roles(t.owner.cookie))[t.viewer.id], 'viewer')
    })

    test("a person's token holds at most their current role: demoted, it loses scopes at once; removed, it is refused", async () => {
      const t = await team('capped')
      const made = await s.request('POST', '/v1/tokens', asBrowser(s, t.admin.cookie, { json: { name: 'deploy' } }))
      assert.equal(made.status, 201, made.text)
      assert.deepEqual(made.body.data.createdBy, { type: 'user', id: t.admin.id, label: t.admin.email })
      const token = made.body.data.token as string
      const createLink = () => s.request('POST', '/v1/links', { token, json: { destination: 'https://example.com/capped' } })
      const createDomain = () => s.request('POST', '/v1/domains', { token, json: { name: 'capped.example' } })
      const role = async () => (await s.request('GET', '/v1/me', { token })).body.data.principal.role

      assert.equal((await createLink()).status, 201)
      assert.equal((await patch(t.owner.cookie, t.admin.id, 'member')).status, 200)
      assert.equal(await role(), 'member')
      assert.equal((await createLink()).status, 201)
      const noDomain = await createDomain()
      assert.equal(noDomain.status, 403, noDomain.text)

      assert.equal((await patch(t.owner.cookie, t.admin.id, 'viewer')).status, 200)
      const noLink = await createLink()
      assert.equal(noLink.status, 403, noLink.text)
      assert.match(noLink.body.error.message, /links:write/)
      assert.equal((await s.request('GET', '/v1/links', { token })).status, 200, 'it still reads')

      assert.equal((await patch(t.owner.cookie, t.admin.id, 'member')).status, 200)
      assert.equal((await createLink()).status, 201, 'promoted again, it writes again: the cap follows the role')

      assert.equal((await remove(t.owner.cookie, t.admin.id)).status, 200)
      const gone = await s.request('GET', '/v1/links', { token })
      assert.equal(gone.status, 401, gone.text)
      assert.equal((await createLink()).status, 401)
    })
  })
}
