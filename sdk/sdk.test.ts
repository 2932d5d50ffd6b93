import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../test/build-test-app.js'
import { renderSchema, SCHEMA_FILE } from './generate.js'
import { createLinklineClient, type Schema } from './index.js'

const ROOT = new URL('../../', import.meta.url)

describe('the SDK against a real server', () => {
  let s: TestServer
  before(async () => {
    s = await startTestServer()
  })
  after(() => s.close())

  test(`${SCHEMA_FILE} is generated from the document the server serves`, async () => {
    const served = await s.request('GET', '/v1/openapi.json', { token: null })
    assert.equal(served.status, 200)
    const committed = readFileSync(new URL(SCHEMA_FILE, ROOT), 'utf8')
    assert.equal(await renderSchema(served.body as object), committed, `${SCHEMA_FILE} differs from the server's OpenAPI document: run npm run sdk`)
  })

  test('createLinklineClient creates a link and reads it back with a token', async () => {
    const client = createLinklineClient(s.url, s.token)
    const created = await client.POST('/v1/links', { body: { destination: 'https://sdk.example/docs', title: 'SDK' } })
    assert.equal(created.response.status, 201)
    assert.ok(created.data, 'a created link')
    const link: Schema<'Link'> = created.data.data
    assert.equal(link.destination, 'https://sdk.example/docs')

    const read = await client.GET('/v1/links/{id}', { params: { path: { id: link.id } } })
    assert.deepEqual(read.data?.data, link)
  })

  test('list parameters: sort, q, and query[tag] repeated (links carrying every tag)', async () => {
    const client = createLinklineClient(s.url, s.token)
    const ids: string[] = []
    for (const tags of [['sdk-a'], ['sdk-a', 'sdk-b']]) {
      const created = await client.POST('/v1/links', { body: { destination: 'https://sdk.example/tags', title: 'SDK tags', tags } })
      ids.push(created.data?.data.id ?? '')
    }
    const both = await client.GET('/v1/links', { params: { query: { sort: 'createdAt', q: 'sdk tags', query: { tag: ['sdk-a', 'sdk-b'] } } } })
    assert.deepEqual(
      both.data?.data.map((l) => l.id),
      [ids[1]],
    )
    const one = await client.GET('/v1/links', { params: { query: { sort: 'createdAt', query: { tag: ['sdk-a'] } } } })
    assert.deepEqual(
      one.data?.data.map((l) => l.id),
      ids,
    )
  })

  test('errors come back as the one error shape, typed', async () => {
    const missing = await createLinklineClient(s.url, s.token).GET('/v1/links/{id}', { params: { path: { id: 'lnk_missing' } } })
    assert.equal(missing.response.status, 404)
    assert.equal(missing.error?.error.code, 'not_found')

    const anonymous = await createLinklineClient(s.url).GET('/v1/links', { params: { query: {} } })
    assert.equal(anonymous.response.status, 401)
    assert.equal(anonymous.error?.error.code, 'unauthorized')
  })
})
