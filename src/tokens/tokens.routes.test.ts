import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { movableClock } from '../../test/movable-clock.js'

for (const backend of backends) {
  describe(`the tokens API (${backend})`, () => {
    let s: TestServer
    const clock = movableClock()
    before(async () => {
      s = await startTestServer({ backend, container: { clock } })
    })
    after(() => s.close())

    test('create: shown once, with the scopes asked for, usable at once; never listed with its secret', async () => {
      const made = await s.request('POST', '/v1/tokens', { json: { name: 'reporting', scopes: ['links:read', 'domains:read'] } })
      assert.equal(made.status, 201, made.text)
      const { token, id, scopes, name, prefix } = made.body.data
      assert.match(token, /^ll_[A-Za-z0-9_-]{43}$/)
      assert.deepEqual(scopes, ['links:read', 'domains:read'])
      assert.equal(name, 'reporting')
      assert.ok(token.startsWith(prefix))
      assert.equal((await s.request('GET', '/v1/links', { token })).status, 200)
      assert.equal((await s.request('POST', '/v1/links', { token, json: { destination: 'https://example.com' } })).status, 403)

      const list = await s.request('GET', '/v1/tokens')
      assert.equal(list.status, 200)
      assert.doesNotMatch(list.text, new RegExp(token), 'the secret is never shown again')
      assert.ok(list.body.data.every((t: { token?: string }) => t.token === undefined))
      const listed = list.body.data.find((t: { id: string }) => t.id === id)
      assert.equal(listed.current, false)
      assert.equal(list.body.data.filter((t: { current: boolean }) => t.current).length, 1, "the caller's own token is marked")
    })

    test('a token made to expire works until then, and afterwards is 401, unlisted, and ends its sessions', async () => {
      const refused = async (expiresAt: unknown, message: RegExp) => {
        const r = await s.request('POST', '/v1/tokens', { json: { name: 'x', expiresAt } })
        assert.deepEqual([r.status, r.body.error.param], [400, 'expiresAt'], JSON.stringify(expiresAt))
        assert.match(r.body.error.message, message)
      }
      await refused('next week', /date-time/)
      await refused(new Date(Date.now() - 60_000).toISOString(), /in the future/)
      await refused(new Date(Date.now() + 11 * 366 * 86_400_000).toISOString(), /ten years/)
      const never = await s.request('POST', '/v1/tokens', { json: { name: 'forever', expiresAt: null } })
      assert.deepEqual([never.status, never.body.data.expiresAt], [201, null])

      const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString()
      const made = await s.request('POST', '/v1/tokens', { json: { name: 'a week', scopes: ['links:read', 'tokens:write'], expiresAt } })
      assert.equal(made.status, 201, made.text)
      assert.equal(made.body.data.expiresAt, expiresAt)
      const { token, id } = made.body.data
      const session = await s.request('POST', '/v1/sessions', { token: null, json: { token } })
      assert.equal(session.status, 201, session.text)
      const cookie = String(session.headers['set-cookie']).split(';')[0] as string
      assert.equal((await s.request('GET', '/v1/links', { token })).status, 200)
      const listed = (await s.request('GET', '/v1/tokens')).body.data.find((t: { id: string }) => t.id === id)
      assert.equal(listed.expiresAt, expiresAt)

      clock.advance(7 * 86_400_000 + 1000)
      assert.equal((await s.request('GET', '/v1/links', { token })).status, 401)
      assert.equal((await s.request('GET', '/v1/links', { token: null, headers: { cookie } })).status, 401, 'its session ends with it')
      assert.ok(!(await s.request('GET', '/v1/tokens')).body.data.some((t: { id: string }) => t.id === id), 'no longer listed')
      assert.ok((await s.request('GET', '/v1/tokens')).body.data.some((t: { id: string }) => t.id === never.body.data.id))
    })

    test("without scopes the new token gets the caller's; more than the caller's is 400 naming scopes", async () => {
      const limited = await s.createToken('alice', ['links:read', 'links:write', 'tokens:write'])
      const same = await s.request('POST', '/v1/tokens', { token: limited, json: {} })
      assert.equal(same.status, 201)
      assert.deepEqual(same.body.data.scopes, ['links:read', 'links:write', 'tokens:write'])
      const more = await s.request('POST', '/v1/tokens', { token: limited, json: { scopes: ['links:read', 'domains:write'] } })
      assert.equal(more.status, 400)
      assert.equal(more.body.error.param, 'scopes')
      assert.match(more.body.error.message, /domains:write/)
      const unknown = await s.request('POST', '/v1/tokens', { json: { scopes: ['links:admin'] } })
      assert.equal(unknown.status, 400)
      assert.match(unknown.body.error.param, /^scopes/)
    })

    test('managing tokens needs tokens:write', async () => {
      const noTokens = await s.createToken('alice', ['links:read', 'links:write'])
      for (const [method, path] of [
        ['GET', '/v1/tokens'],
        ['POST', '/v1/tokens'],
        ['DELETE', '/v1/tokens/tok_x'],
      ] as const) {
        const res = await s.request(method, path, { token: noTokens, ...(method === 'POST' ? { json: {} } : {}) })
        assert.equal(res.status, 403, `${method} ${path}`)
      }
    })

    test("an owner sees and revokes only its own tokens: another owner's is 404", async () => {
      const bobs = await s.container.tokens.create({ ownerId: 'bob', name: 'bob' })
      const list = await s.request('GET', '/v1/tokens')
      assert.ok(list.body.data.every((t: { ownerId: string }) => t.ownerId === 'alice'))
      assert.ok(!list.body.data.some((t: { id: string }) => t.id === bobs.id))
      const other = await s.request('DELETE', `/v1/tokens/${bobs.id}`)
      assert.equal(other.status, 404)
      assert.equal((await s.request('GET', '/v1/links', { token: bobs.token })).status, 200, "bob's token still works")
      assert.equal((await s.request('DELETE', '/v1/tokens/tok_unknown')).status, 404)

      const mine = await s.request('POST', '/v1/tokens', { json: { name: 'temporary' } })
      const revoked = await s.request('DELETE', `/v1/tokens/${mine.body.data.id}`)
      assert.deepEqual(revoked.body, { success: true, data: { id: mine.body.data.id, deleted: true } })
      assert.equal((await s.request('GET', '/v1/links', { token: mine.body.data.token })).status, 401)
      assert.equal((await s.request('DELETE', `/v1/tokens/${mine.body.data.id}`)).status, 404, 'already revoked')
      assert.ok(!(await s.request('GET', '/v1/tokens')).body.data.some((t: { id: string }) => t.id === mine.body.data.id))
    })
  })
}
