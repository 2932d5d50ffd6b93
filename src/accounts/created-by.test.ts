import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { SCOPES } from './roles.js'

const MINUTE = 60_000

for (const backend of backends) {
  describe(`who made what: createdBy and lastUsedAt (${backend})`, () => {
    let s: TestServer
    let offset = 0
    const clock = { now: () => Date.now() + offset }
    before(async () => {
      s = await startTestServer({ backend, container: { clock }, env: { LINKLINE_WEBHOOKS_ALLOW_PRIVATE: 'true', LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    })
    after(() => s.close())

    /** Alice's active tokens as GET /v1/tokens lists them, asked with her all-scope token (so as not to touch the others). */
    const listed = async (id: string) => {
      const list = await s.request('GET', '/v1/tokens')
      assert.equal(list.status, 200, list.text)
      return list.body.data.find((t: { id: string }) => t.id === id) as { createdBy: unknown; lastUsedAt: string | null; current: boolean }
    }

    test('a link, domain, webhook and token made with a token name it: type token, its id, its name', async () => {
      const made = await s.request('POST', '/v1/tokens', { json: { name: 'deploy bot' } })
      assert.equal(made.status, 201, made.text)
      assert.deepEqual(made.body.data.createdBy, s.actorOf(s.token), 'an unnamed token is labelled by its prefix')
      const bot = made.body.data.token as string
      const byBot = { type: 'token', id: made.body.data.id, label: 'deploy bot' }

      const link = await s.request('POST', '/v1/links', { token: bot, json: { destination: 'https://made.example/link' } })
      assert.equal(link.status, 201, link.text)
      assert.deepEqual(link.body.data.createdBy, byBot)
      assert.deepEqual((await s.request('GET', `/v1/links/${link.body.data.id}`)).body.data.createdBy, byBot, 'stored, not only answered')

      const domain = await s.request('POST', '/v1/domains', { token: bot, json: { name: 'made-by.example' } })
      assert.equal(domain.status, 201, domain.text)
      assert.deepEqual(domain.body.data.createdBy, byBot)
      assert.deepEqual((await s.request('GET', '/v1/domains/made-by.example')).body.data.createdBy, byBot)

      const hook = await s.request('POST', '/v1/webhooks', { token: bot, json: { url: 'http://127.0.0.1:9/made-by', events: ['message.created'] } })
      assert.equal(hook.status, 201, hook.text)
      assert.deepEqual(hook.body.data.createdBy, byBot)
      assert.deepEqual((await s.request('GET', `/v1/webhooks/${hook.body.data.id}`)).body.data.createdBy, byBot)

      const child = await s.request('POST', '/v1/tokens', { token: bot, json: { name: 'child', scopes: ['links:read'] } })
      assert.equal(child.status, 201, child.text)
      assert.deepEqual(child.body.data.createdBy, byBot)
      assert.deepEqual((await listed(child.body.data.id)).createdBy, byBot)
    })

    test("a token's lastUsedAt is null until it is used, then the time of its use, moved at most once a minute", async () => {
      const made = await s.request('POST', '/v1/tokens', { json: { name: 'unused', scopes: ['links:read'] } })
      assert.equal(made.status, 201, made.text)
      const { id, token } = made.body.data as { id: string; token: string }
      assert.equal(made.body.data.lastUsedAt, null)
      assert.equal((await listed(id)).lastUsedAt, null, 'listing tokens with another one does not use it')

      const lastUsed = async () => Date.parse((await listed(id)).lastUsedAt ?? 'never')
      const use = async () => {
        const from = clock.now()
        assert.equal((await s.request('GET', '/v1/links', { token })).status, 200)
        return { from, to: clock.now() }
      }
      const first = await use()
      const at = await lastUsed()
      assert.ok(at >= first.from && at <= first.to, `lastUsedAt ${at} within the request ${first.from}..${first.to}`)

      offset += 30_000
      await use()
      assert.equal(await lastUsed(), at, 'within a minute of the last write it stays')
      offset += MINUTE
      const later = await use()
      const moved = await lastUsed()
      assert.ok(moved >= later.from && moved <= later.to, `a minute on, it moves: ${moved} within ${later.from}..${later.to}`)
    })

    test('a person signed in makes a token named after them (type user, their id, their email); its objects name the token', async () => {
      const password = 'correct horse battery'
      const user = await s.container.accounts.createUser({ email: 'ada@example.com', name: 'Ada', password })
      await s.container.accounts.join(user.id, 'alice', 'admin')
      const signedIn = await s.request('POST', '/v1/sessions', { token: null, json: { email: 'ada@example.com', password } })
      assert.equal(signedIn.status, 201, signedIn.text)
      const cookie = `linkline_session=${/^linkline_session=([^;]*)/.exec([signedIn.headers['set-cookie'] ?? []].flat()[0] ?? '')?.[1]}`
      const asAda = { token: null, headers: { cookie, origin: `http://${s.host}` } }

      const current = await s.request('GET', '/v1/sessions/current', asAda)
      assert.deepEqual(
        { ...current.body.data, scopes: [...current.body.data.scopes].sort() },
        { ownerId: 'alice', scopes: [...SCOPES].sort(), tokenId: null, userId: user.id, via: 'session' },
      )

      const byAda = { type: 'user', id: user.id, label: 'ada@example.com' }
      assert.match(user.id, /^usr_/)
      const made = await s.request('POST', '/v1/tokens', { ...asAda, json: { name: 'ada laptop' } })
      assert.equal(made.status, 201, made.text)
      assert.deepEqual(made.body.data.createdBy, byAda)
      assert.deepEqual(made.body.data.scopes, [...SCOPES], "an admin's scopes: every one")
      assert.deepEqual((await listed(made.body.data.id)).createdBy, byAda)
      const link = await s.request('POST', '/v1/links', { ...asAda, json: { destination: 'https://made.example/by-ada' } })
      assert.equal(link.status, 201, link.text)
      assert.deepEqual(link.body.data.createdBy, byAda)

      // Her token acts as itself, on her behalf.
      const laptop = made.body.data.token as string
      const viaToken = await s.request('GET', '/v1/sessions/current', { token: laptop })
      assert.deepEqual(
        { tokenId: viaToken.body.data.tokenId, userId: viaToken.body.data.userId, via: viaToken.body.data.via },
        { tokenId: made.body.data.id, userId: user.id, via: 'bearer' },
      )
      const byLaptop = await s.request('POST', '/v1/links', { token: laptop, json: { destination: 'https://made.example/by-laptop' } })
      assert.deepEqual(byLaptop.body.data.createdBy, { type: 'token', id: made.body.data.id, label: 'ada laptop' })
    })
  })
}
