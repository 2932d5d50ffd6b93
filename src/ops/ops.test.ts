import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'

describe('operational endpoints', () => {
  let s: TestServer
  before(async () => {
    s = await startTestServer()
  })
  after(() => s.close())

  test('/healthz and /readyz need no token', async () => {
    assert.deepEqual((await s.request('GET', '/healthz', { token: null })).body, { status: 'ok' })
    assert.deepEqual((await s.request('GET', '/readyz', { token: null })).body, { status: 'ready' })
  })

  test('/metrics counts API requests and redirects with latency histograms', async () => {
    const { body } = await s.request('POST', '/v1/links', { json: { destination: 'https://m.example/', path: '/m' } })
    assert.ok(body.data.id)
    await s.request('GET', '/m', { token: null })
    await s.request('GET', '/m-missing', { token: null })
    const r = await s.request('GET', '/metrics', { token: null })
    assert.equal(r.status, 200)
    assert.match(String(r.headers['content-type']), /^text\/plain/)
    assert.match(r.text, /linkline_http_requests_total\{method="POST",route="\/v1\/links",status="201"\} 1/)
    assert.match(r.text, /linkline_redirects_total\{outcome="found"\} 1/)
    assert.match(r.text, /linkline_redirects_total\{outcome="not_found"\} 1/)
    assert.match(r.text, /linkline_redirect_duration_seconds_count 2/)
    assert.match(r.text, /linkline_http_request_duration_seconds_bucket/)
    assert.match(r.text, /process_resident_memory_bytes/)
  })

  test('/v1/openapi.json is an OpenAPI 3.1 document of every endpoint, without a token', async () => {
    const r = await s.request('GET', '/v1/openapi.json', { token: null })
    assert.equal(r.status, 200)
    const doc = r.body
    assert.equal(doc.openapi, '3.1.0')
    for (const path of ['/v1/links', '/v1/links/{id}', '/v1/domains', '/v1/domains/{name}', '/healthz', '/readyz', '/metrics']) {
      assert.ok(doc.paths[path], `${path} is documented`)
    }
    assert.ok(doc.paths['/v1/links'].post.requestBody)
    assert.deepEqual(Object.keys(doc.paths['/v1/links/{id}']).sort(), ['delete', 'get', 'patch', 'put'])
    assert.equal(doc.paths['/v1/links'].get.parameters.find((p: { name: string }) => p.name === 'limit').schema.maximum, 100)
    assert.ok(doc.components.schemas.Link)
    assert.ok(doc.components.schemas.ErrorBody)
    assert.deepEqual(doc.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer' })
  })

  test('/docs serves the interactive reference', async () => {
    const r = await s.request('GET', '/docs/', { token: null })
    assert.equal(r.status, 200)
    assert.match(r.text, /swagger/i)
  })
})
