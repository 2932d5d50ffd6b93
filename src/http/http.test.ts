import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'

const JSON_TYPE = 'application/json; charset=utf-8'

for (const backend of backends) {
  describe(`HTTP conventions (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend })
    })
    after(() => s.close())

    const assertError = (
      r: { status: number; body: { success: boolean; error: { code: string } }; headers: Record<string, unknown> },
      status: number,
      code: string,
    ) => {
      assert.equal(r.status, status)
      assert.equal(r.headers['content-type'], JSON_TYPE)
      assert.equal(r.body.success, false)
      assert.equal(r.body.error.code, code)
    }

    test('401 without a valid token, with WWW-Authenticate, even on unknown /v1 routes', async () => {
      for (const authorization of [undefined, 'Basic abc', 'Bearer', 'Bearer ', 'bearer x', 'Bearer ll_unknown']) {
        for (const path of ['/v1/links', '/v1/nowhere', '/v1']) {
          const r = await s.request('GET', path, { token: null, headers: authorization ? { authorization } : {} })
          assertError(r, 401, 'unauthorized')
          assert.equal(r.headers['www-authenticate'], 'Bearer')
        }
      }
    })

    test('a revoked token is 401 on the next request', async () => {
      const token = await s.createToken('revokee')
      assert.equal((await s.request('GET', '/v1/links', { token })).status, 200)
      assert.ok(await s.container.tokens.revoke(token))
      assertError(await s.request('GET', '/v1/links', { token }), 401, 'unauthorized')
    })

    test('403 for a missing scope, checked before the route, the resource and the parameters', async () => {
      const reader = await s.createToken('alice', ['links:read'])
      assert.equal((await s.request('GET', '/v1/links', { token: reader })).status, 200)
      assertError(await s.request('POST', '/v1/links', { token: reader, json: { destination: 'https://a.example' } }), 403, 'forbidden')
      assertError(await s.request('POST', '/v1/links', { token: reader, json: { bogus: 1 } }), 403, 'forbidden')
      assertError(await s.request('DELETE', '/v1/links/lnk_nope', { token: reader }), 403, 'forbidden')
      assertError(await s.request('GET', '/v1/domains', { token: reader }), 403, 'forbidden')
      const writer = await s.createToken('alice', ['links:write'])
      assertError(await s.request('GET', '/v1/links', { token: writer }), 403, 'forbidden')
    })

    test('404 for an unknown route (after authentication), 405 with Allow for a wrong method', async () => {
      assertError(await s.request('GET', '/v1/nowhere'), 404, 'not_found')
      const r = await s.request('DELETE', '/v1/links')
      assertError(r, 405, 'method_not_allowed')
      assert.equal(r.headers.allow, 'GET, HEAD, POST')
      const one = await s.request('POST', '/v1/links/lnk_x')
      assertError(one, 405, 'method_not_allowed')
      assert.equal(one.headers.allow, 'DELETE, GET, HEAD, PATCH, PUT')
      assertError(await s.request('GET', '/v1/links/lnk_unknown'), 404, 'not_found')
    })

    test('404 for an unknown or foreign resource comes before 400 for its parameters', async () => {
      const bob = await s.createToken('bob-order')
      const link = (await s.request('POST', '/v1/links', { json: { destination: 'https://order.example' } })).body.data.id
      const conv = (await s.request('POST', '/v1/conversations', { json: { contact_id: 'c-order' } })).body.id
      // [method, path, options, what the owner gets]: bob, a stranger, always gets 404.
      const cases: [string, string, { json?: unknown }, number][] = [
        ['PUT', '/v1/links/lnk_unknown', { json: { bogus: 1 } }, 404],
        ['GET', `/v1/links/${'x'.repeat(300)}`, {}, 404],
        ['PATCH', `/v1/links/${link}`, { json: { path: 'bad' } }, 400],
        ['GET', `/v1/links/${link}/stats?interval=week`, {}, 400],
        ['GET', `/v1/links/${link}/qr?size=1`, {}, 400],
        ['PUT', `/v1/conversations/${conv}`, { json: { is_muted: 'maybe' } }, 400],
        ['POST', `/v1/conversations/${conv}/open`, { json: { bogus: 1 } }, 400],
        ['POST', `/v1/conversations/${conv}/messages`, { json: {} }, 400],
        ['GET', `/v1/conversations/${conv}/messages?limit=0`, {}, 400],
      ]
      for (const [method, path, options, ownerStatus] of cases) {
        assertError(await s.request(method, path, { ...options, token: bob }), 404, 'not_found')
        assert.equal((await s.request(method, path, options)).status, ownerStatus, `${method} ${path}`)
      }
    })

    test('bodies: 415 for other content types, 400 invalid_body for broken JSON or a non-object, 413 over 64 KiB', async () => {
      const text = await s.request('POST', '/v1/links', { raw: 'destination=https://a.example', headers: { 'content-type': 'text/plain' } })
      assertError(text, 415, 'unsupported_media_type')
      assertError(await s.request('POST', '/v1/links', { raw: '{"destination":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_body')
      for (const value of [[], 'x', 42, null]) {
        assertError(await s.request('POST', '/v1/links', { json: value }), 400, 'invalid_body')
      }
      const big = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example', title: 'x'.repeat(70_000) } })
      assertError(big, 413, 'payload_too_large')
      const charset = await s.request('POST', '/v1/links', {
        raw: JSON.stringify({ destination: 'https://charset.example' }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      })
      assert.equal(charset.status, 201)
    })

    test('a URL or headers over the parser limit are 431 in the error shape; a malformed request is 400', async () => {
      // Node's HTTP parser refuses these before any request exists (found by the API fuzz test).
      const long = await s.request('GET', `/v1/links?query=${'x'.repeat(70_000)}`)
      assert.equal(long.status, 431)
      assert.deepEqual(long.body, {
        success: false,
        error: { code: 'payload_too_large', message: 'the URL and headers are larger than the limit', param: null },
      })
      assert.match(String(long.headers['x-request-id']), /^[0-9a-f-]{36}$/)
      const malformed = await rawExchange(s.url, 'GET /v1/links HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n')
      assert.match(malformed, /^HTTP\/1\.1 400 /)
      assert.equal(JSON.parse(malformed.slice(malformed.indexOf('\r\n\r\n') + 4)).error.code, 'invalid_body')
    })

    test('an HTTP/1.1 request without Host is 400 in the error shape naming Host; HTTP/1.0 needs none', async () => {
      const missing = await rawExchange(s.url, 'GET /some-link HTTP/1.1\r\nConnection: close\r\n\r\n')
      assert.match(missing, /^HTTP\/1\.1 400 /)
      assert.match(missing, /\r\nx-request-id: [0-9a-f-]{36}\r\n/i)
      assert.deepEqual(JSON.parse(missing.slice(missing.indexOf('\r\n\r\n') + 4)).error, {
        code: 'validation_error',
        message: 'an HTTP/1.1 request must carry a Host header',
        param: 'Host',
      })
      assert.match(await rawExchange(s.url, 'GET /healthz HTTP/1.0\r\n\r\n'), /^HTTP\/1\.[01] 200 /)
    })

    test('form bodies coerce; JSON bodies are typed', async () => {
      const r = await s.request('POST', '/v1/links', { form: { destination: 'https://form.example', title: '' } })
      assert.equal(r.status, 201)
      assert.equal(r.body.data.title, null, 'an empty form value for a nullable field is null')
      // JSON values keep their types: a boolean, a number and a digit string arrive as sent. Only strings
      // are coerced (docs/api/README.md#conventions), so a number where a boolean belongs is refused, not converted.
      const typed = await s.request('POST', '/v1/links', { json: { destination: 'https://json.example', title: '007' } })
      assert.equal(typed.status, 201)
      assert.equal(typed.body.data.title, '007', 'a digit string stays a string')
      const conversation = (await s.request('POST', '/v1/conversations', { json: { contact_id: 'typed-1' } })).body.id
      const json = await s.request('PUT', `/v1/conversations/${conversation}`, { json: { is_pinned: true, is_muted: false, archived_at: 1_700_000_000 } })
      assert.equal(json.status, 200, json.text)
      assert.deepEqual([json.body.is_pinned, json.body.is_muted, json.body.archived_at], [true, false, 1_700_000_000])
      const number = await s.request('PUT', `/v1/conversations/${conversation}`, { json: { is_muted: 1 } })
      assertError(number, 400, 'validation_error')
      assert.equal(number.body.error.param, 'is_muted')
      assertError(await s.request('PUT', `/v1/conversations/${conversation}`, { json: { archived_at: 1.5 } }), 400, 'validation_error')
    })

    test('X-Request-Id is echoed when sent, generated otherwise, on success and error', async () => {
      assert.equal((await s.request('GET', '/v1/links', { headers: { 'x-request-id': 'abc-123' } })).headers['x-request-id'], 'abc-123')
      assert.equal((await s.request('GET', '/v1/nowhere', { token: null, headers: { 'x-request-id': 'err-1' } })).headers['x-request-id'], 'err-1')
      const generated = await s.request('GET', '/healthz')
      assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/)
      // A path the router cannot decode fails before any hook runs (found by the API fuzz test).
      const undecodable = await s.request('GET', '/v1/links/%', { headers: { 'x-request-id': 'bad-url-1' } })
      assert.equal(undecodable.status, 404)
      assert.equal(undecodable.headers['x-request-id'], 'bad-url-1')
    })

    describe('Idempotency-Key', () => {
      const post = (key: string, destination: string, token?: string) =>
        s.request('POST', '/v1/links', { json: { destination }, headers: { 'idempotency-key': key }, ...(token ? { token } : {}) })
      const count = async (destination: string, token?: string) =>
        (await s.request('GET', `/v1/links?limit=100&query[destination]=${encodeURIComponent(destination)}`, token ? { token } : {})).body.data.length

      test('a retry with the same key and body replays the first response and creates nothing', async () => {
        const first = await post('key-1', 'https://idem.example/1')
        const second = await post('key-1', 'https://idem.example/1')
        assert.equal(first.status, 201)
        assert.equal(second.status, 201)
        assert.deepEqual(second.body, first.body)
        assert.equal(second.headers['idempotent-replayed'], 'true')
        assert.equal(await count('https://idem.example/1'), 1)
      })

      test('the same key with another body is 409 idempotency_key_reused', async () => {
        await post('key-2', 'https://idem.example/2')
        const r = await post('key-2', 'https://idem.example/other')
        assertError(r, 409, 'idempotency_key_reused')
        assert.equal(await count('https://idem.example/other'), 0)
      })

      test('a key whose request died in flight is taken over after its lease, not held for 24 h', async () => {
        const ownerId = 'alice'
        await s.container.storage.db
          .insertInto('idempotency_keys')
          .values({ owner_id: ownerId, key: 'key-dead', request_hash: 'x', status_code: null, response_body: null, created_at: Date.now() - 2 * 60_000 })
          .execute()
        const started = performance.now()
        const r = await post('key-dead', 'https://idem.example/dead')
        assert.equal(r.status, 201)
        assert.ok(performance.now() - started < 5_000, 'answered without waiting for the dead claim')
        assert.equal((await post('key-dead', 'https://idem.example/dead')).headers['idempotent-replayed'], 'true')
      })

      test('concurrent duplicates create exactly one', async () => {
        const results = await Promise.all(Array.from({ length: 5 }, () => post('key-3', 'https://idem.example/3')))
        assert.ok(results.every((r) => r.status === 201))
        assert.equal(new Set(results.map((r) => r.body.data.id)).size, 1)
        assert.equal(await count('https://idem.example/3'), 1)
      })

      test('keys are scoped to the owner; a 400 is not kept, so the corrected retry succeeds; a bad key is 400', async () => {
        const bob = await s.createToken('bob-idem')
        await post('key-4', 'https://idem.example/4')
        const bobs = await post('key-4', 'https://idem.example/4', bob)
        assert.equal(bobs.status, 201)
        assert.equal(bobs.headers['idempotent-replayed'], undefined)
        const bad = await post('key-5', 'javascript:x')
        assert.equal(bad.status, 400)
        const again = await post('key-5', 'javascript:x')
        assert.equal(again.status, 400)
        assert.equal(again.headers['idempotent-replayed'], undefined)
        const corrected = await post('key-5', 'https://idem.example/5-corrected')
        assert.equal(corrected.status, 201)
        assert.equal((await post('key-5', 'https://idem.example/5-corrected')).headers['idempotent-replayed'], 'true')
        const conflicting = await s.request('POST', '/v1/links', { json: { destination: 'https://idem.example/6', path: '/idem-taken' } })
        assert.equal(conflicting.status, 201)
        const taken = await s.request('POST', '/v1/links', {
          json: { destination: 'https://idem.example/7', path: '/idem-taken' },
          headers: { 'idempotency-key': 'key-7' },
        })
        assert.equal(taken.status, 409)
        const takenAgain = await s.request('POST', '/v1/links', {
          json: { destination: 'https://idem.example/7', path: '/idem-taken' },
          headers: { 'idempotency-key': 'key-7' },
        })
        assert.equal(takenAgain.headers['idempotent-replayed'], 'true', 'a request acted upon (409 conflict) is replayed')
        const tooLong = await post('k'.repeat(256), 'https://idem.example/5')
        assertError(tooLong, 400, 'validation_error')
        assert.equal(tooLong.body.error.param, 'Idempotency-Key')
      })
    })
  })
}

describe('rate limit', () => {
  let s: TestServer
  before(async () => {
    s = await startTestServer({ env: { LINKLINE_RATE_LIMIT: '5' } })
  })
  after(() => s.close())

  test('per token: RateLimit headers, then 429 with Retry-After; another token is unaffected', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await s.request('GET', '/v1/links')
      assert.equal(r.status, 200)
      assert.equal(r.headers['ratelimit-limit'], '5')
      assert.equal(r.headers['ratelimit-remaining'], String(4 - i))
      assert.ok(Number(r.headers['ratelimit-reset']) > 0)
    }
    const limited = await s.request('GET', '/v1/links')
    assert.equal(limited.status, 429)
    assert.equal(limited.body.error.code, 'rate_limited')
    assert.ok(Number(limited.headers['retry-after']) > 0)
    const other = await s.createToken('other')
    assert.equal((await s.request('GET', '/v1/links', { token: other })).status, 200)
    assert.equal((await s.request('GET', '/healthz')).status, 200, 'operational endpoints are not limited')
  })
})

describe('internal errors', () => {
  test('a 500 says internal_error and nothing about the cause', async () => {
    const s = await startTestServer()
    try {
      await s.container.storage.close()
      const r = await s.request('GET', '/v1/links')
      assert.equal(r.status, 500)
      assert.deepEqual(r.body, { success: false, error: { code: 'internal_error', message: 'an internal error occurred; it has been logged', param: null } })
      assert.doesNotMatch(r.text, /sqlite|select|database|\.ts|\.js|at /i)
    } finally {
      await s.close()
    }
  })
})

/** Sends raw bytes and reads the answer until the server closes the connection. */
function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    let answer = ''
    const socket = connect(Number(port), hostname, () => socket.end(request))
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()))
    socket.on('close', () => resolve(answer))
    socket.on('error', reject)
  })
}
