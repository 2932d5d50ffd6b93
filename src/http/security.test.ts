import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { rawRequest } from '../../test/raw-http.js'

for (const backend of backends) {
  describe(`request targets and authentication (${backend})`, () => {
    let s: TestServer
    let port: number
    before(async () => {
      s = await startTestServer({ backend })
      port = Number(new URL(s.url).port)
    })
    after(() => s.close())

    test('an encoded spelling of a /v1 route is authenticated like the plain one', async () => {
      for (const [method, path] of [['POST', '/%76%31/links'], ['POST', '/v%31/domains'], ['GET', '/%76%31/links'], ['GET', '/v1/%6cinks'], ['DELETE', '/%76%31/links/lnk_x']]) {
        const anonymous = await s.request(method as string, path as string, { token: null, form: { destination: 'https://a.example/', name: 'x.example' } })
        assert.equal(anonymous.status, 401, `${method} ${path}`)
        assert.equal(anonymous.body.error.code, 'unauthorized')
      }
      const created = await s.request('POST', '/%76%31/links', { json: { destination: 'https://encoded.example/' } })
      assert.equal(created.status, 201)
      assert.equal(created.body.data.ownerId, 'alice')
      assert.equal((await s.request('GET', '/%76%31/links')).body.data.length > 0, true)
      // 405 on an encoded spelling of a known path, after authentication.
      assert.equal((await s.request('PATCH', '/%76%31/links', { token: null })).status, 401)
      assert.equal((await s.request('PATCH', '/%76%31/links')).status, 405)
      assert.equal((await s.request('GET', '/%76%31/nowhere', { token: null })).status, 401)
    })

    test('an absolute-form target is 400 in the error shape, on the API and on the redirect alike', async () => {
      for (const [method, target] of [['POST', `http://${s.host}/v1/links`], ['GET', `http://${s.host}/v1/links`], ['GET', `http://${s.host}/anything`]]) {
        const body = method === 'POST' ? '{"destination":"https://a.example/"}' : ''
        const r = await rawRequest(port, `${method} ${target} HTTP/1.1\r\nHost: ${s.host}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
        assert.equal(r.status, 400, `${method} ${target}`)
        assert.equal(JSON.parse(r.body).error.code, 'validation_error')
      }
    })
  })
}
