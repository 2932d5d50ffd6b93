import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { needsPostgres } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestDatabase, type TestServer } from '../../test/build-test-app.js'
import { startTcpProxy, type TcpProxy } from '../../test/tcp-proxy.js'

describe('PostgreSQL goes away and comes back', { skip: needsPostgres }, () => {
  let database: TestDatabase
  let proxy: TcpProxy
  let s: TestServer

  before(async () => {
    database = await createTestDatabase('postgres')
    proxy = await startTcpProxy(database.env.DATABASE_URL as string, 5432)
    s = await startTestServer({ database: { env: { ...database.env, DATABASE_URL: proxy.url }, drop: async () => {} } })
  })
  after(async () => {
    await s?.close()
    await proxy?.close()
    await database?.drop()
  })

  test('requests get 503 service_unavailable without SQL, then succeed once the database is back', async () => {
    assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', path: '/before' } })).status, 201)
    await proxy.cut()

    for (const r of [
      await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', path: '/during' } }),
      await s.request('GET', '/v1/links'),
      await s.request('GET', '/readyz'),
    ]) {
      assert.equal(r.status, 503)
      assert.equal(r.headers['retry-after'], '1')
      assert.equal(r.body.error.code, 'service_unavailable')
      assert.doesNotMatch(r.text, /select|insert|from|ECONN|terminated/i)
    }
    const redirect = await s.request('GET', '/not-cached', { token: null })
    assert.equal(redirect.status, 503)

    await proxy.restore()
    assert.equal((await s.request('GET', '/readyz')).status, 200)
    assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', path: '/after' } })).status, 201)
    assert.equal((await s.request('GET', '/after', { token: null })).headers.location, 'https://a.example/')
  })
})
