import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'

for (const backend of backends) {
  describe(`the tokens API (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend })
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
