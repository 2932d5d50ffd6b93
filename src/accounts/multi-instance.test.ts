import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { needsPostgresAndRedis } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestDatabase, type TestServer } from '../../test/build-test-app.js'
import { asBrowser, person, signIn } from '../../test/people.js'

describe('roles across instances on one PostgreSQL and Redis', { skip: needsPostgresAndRedis }, () => {
  let database: TestDatabase
  let a: TestServer
  let b: TestServer
  before(async () => {
    database = await createTestDatabase('postgres')
    a = await startTestServer({ database })
    b = await startTestServer({ database })
  })
  after(async () => {
    await Promise.all([a?.close(), b?.close()])
    await database?.drop()
  })

  /** An owner and an admin of `workspaceId`, signed in on A; the admin's session and a token she made, to use on B. */
  const setUp = async (workspaceId: string) => {
    const owner = await person(a, workspaceId, 'owner')
    const admin = await person(a, workspaceId, 'admin')
    const ownerCookie = await signIn(a, owner)
    const cookie = await signIn(a, admin)
    const made = await b.request('POST', '/v1/tokens', asBrowser(b, cookie, { json: { name: 'on b' } }))
    assert.equal(made.status, 201, made.text)
    const onB = {
      withCookie: (method: string, path: string, json?: unknown) => b.request(method, path, asBrowser(b, cookie, { json })),
      withToken: (method: string, path: string, json?: unknown) => b.request(method, path, { token: made.body.data.token, json }),
    }
    const onA = (method: string, path: string, json?: unknown) => a.request(method, path, asBrowser(a, ownerCookie, { json }))
    return { admin, onA, onB }
  }
  const link = { destination: 'https://example.com/across' }

  test('a demotion on A is enforced on B at the very next request', async () => {
    const { admin, onA, onB } = await setUp('across-demote')
    for (const use of [onB.withCookie, onB.withToken]) assert.equal((await use('POST', '/v1/links', link)).status, 201)

    assert.equal((await onA('PATCH', `/v1/members/${admin.id}`, { role: 'viewer' })).status, 200)
    for (const use of [onB.withCookie, onB.withToken]) {
      const refused = await use('POST', '/v1/links', link)
      assert.equal(refused.status, 403, refused.text)
      assert.match(refused.body.error.message, /links:write/)
      assert.equal((await use('GET', '/v1/links')).status, 200, 'a viewer still reads')
    }
    assert.equal((await onB.withCookie('GET', '/v1/me')).body.data.principal.role, 'viewer')

    assert.equal((await onA('PATCH', `/v1/members/${admin.id}`, { role: 'member' })).status, 200)
    for (const use of [onB.withCookie, onB.withToken]) assert.equal((await use('POST', '/v1/links', link)).status, 201, 'and a promotion too')
  })

  test('a removal on A is a 401 on B at the very next request, for her session and her token', async () => {
    const { admin, onA, onB } = await setUp('across-remove')
    for (const use of [onB.withCookie, onB.withToken]) assert.equal((await use('GET', '/v1/links')).status, 200)

    assert.equal((await onA('DELETE', `/v1/members/${admin.id}`)).status, 200)
    for (const use of [onB.withCookie, onB.withToken]) {
      const refused = await use('GET', '/v1/links')
      assert.equal(refused.status, 401, refused.text)
    }
  })
})
