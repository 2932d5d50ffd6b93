import assert from 'node:assert/strict'
import type { TestServer } from './build-test-app.js'

/**
 * The link API as the link suites call it, each call asserting the answer it expects. Takes the
 * server lazily: suites start theirs in `before`, after these helpers are made.
 */
export function linkRequests(server: () => TestServer) {
  return {
    async create(fields: Record<string, unknown>) {
      const r = await server().request('POST', '/v1/links', { json: fields })
      assert.equal(r.status, 201, r.text)
      return r.body.data
    },
    async update(id: string, fields: Record<string, unknown>) {
      const r = await server().request('PATCH', `/v1/links/${id}`, { json: fields })
      assert.equal(r.status, 200, r.text)
      return r.body.data
    },
    /** A 400 validation_error naming `param`. */
    async refused(fields: Record<string, unknown>, param: string, method = 'POST', path = '/v1/links') {
      const r = await server().request(method, path, { json: fields })
      assert.equal(r.status, 400, `${JSON.stringify(fields)}: ${r.text}`)
      assert.equal(r.body.error.code, 'validation_error')
      assert.equal(r.body.error.param, param, r.text)
    },
  }
}
