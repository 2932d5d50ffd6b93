import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'

const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version

describe('the OpenAPI document and /docs', () => {
  let s: TestServer
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is read freely
  let doc: any
  let linkId: string
  before(async () => {
    s = await startTestServer()
    doc = (await s.request('GET', '/v1/openapi.json', { token: null })).body
    linkId = (await s.request('POST', '/v1/links', { json: { destination: 'https://o.example/' } })).body.data.id
  })
  after(() => s.close())

  const parameter = (path: string, name: string) => doc.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema

  test('a choice of values is an enum listing every value, and a wrong one is refused in those words', async () => {
    assert.deepEqual(parameter('/v1/links/{id}/qr', 'ecc'), { type: 'string', enum: ['L', 'M', 'Q', 'H'], default: 'M' })
    assert.deepEqual(parameter('/v1/links/{id}/qr', 'format'), { type: 'string', enum: ['png', 'svg'], default: 'png' })
    assert.deepEqual(parameter('/v1/links/{id}/stats', 'interval'), { type: 'string', enum: ['hour', 'day', 'month'], default: 'day' })
    assert.deepEqual(doc.components.schemas.LinkStats.properties.interval, { type: 'string', enum: ['hour', 'day', 'month'] })
    assert.ok(!JSON.stringify(doc).includes('"const"'), 'no const left from a union of literals')

    for (const [path, message] of [
      [`/v1/links/${linkId}/qr?ecc=X`, 'ecc must be one of L, M, Q, H'],
      [`/v1/links/${linkId}/qr?format=gif`, 'format must be one of png, svg'],
      [`/v1/links/${linkId}/stats?interval=week`, 'interval must be one of hour, day, month'],
    ] as const) {
      const r = await s.request('GET', path)
      assert.equal(r.status, 400, path)
      assert.equal(r.body.error.message, message)
    }
  })

  test("validation messages are written for people, not in the validator's words", async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/v1/links', { destination: 'https://a.example', domain: '' }, 'domain must not be empty'],
      ['POST', '/v1/links', { destination: 'https://a.example', title: 'x'.repeat(256) }, 'title must be at most 255 characters'],
      ['GET', '/v1/links?limit=0', undefined, 'limit must be at least 1'],
      ['GET', '/v1/links?limit=101', undefined, 'limit must be at most 100'],
      ['POST', '/v1/conversations', { contact_id: 'c1', link_id: 5 }, 'link_id must be text'],
    ]
    for (const [method, path, json, message] of cases) {
      const r = await s.request(method, path, json === undefined ? {} : { json })
      assert.equal(r.status, 400, `${method} ${path}`)
      assert.equal(r.body.error.message, message)
      assert.doesNotMatch(r.body.error.message, /must NOT|must be equal|must be string|must be >=/)
    }
  })

  test('every request body has an example that works when sent as it is', async () => {
    // What /docs fills in: the body's example, else one built from every property's own example, else
    // "string" for each property without one (as `"domain":"string"` once was, which the API refuses).
    const examples: Record<string, unknown> = {}
    type Content = { example?: unknown; schema: { properties?: Record<string, { examples?: unknown[] }> } }
    for (const [path, operations] of Object.entries(doc.paths) as [string, Record<string, { requestBody?: { content: Record<string, Content> } }>][]) {
      for (const [method, operation] of Object.entries(operations)) {
        const content = operation.requestBody?.content['application/json']
        const properties = Object.entries(content?.schema.properties ?? {})
        if (content === undefined || properties.length === 0) continue // no body, or an empty one: nothing to fill in
        const built = properties.every(([, p]) => p.examples !== undefined) ? Object.fromEntries(properties.map(([k, p]) => [k, p.examples![0]])) : undefined
        assert.ok(content.example !== undefined || built !== undefined, `${method.toUpperCase()} ${path} has an example`)
        examples[`${method} ${path}`] = content.example ?? built
      }
    }
    assert.ok(!JSON.stringify(examples).includes('"string"'), 'no placeholder values')
    const link = await s.request('POST', '/v1/links', { json: examples['post /v1/links'] })
    assert.equal(link.status, 201, JSON.stringify(link.body))
    assert.equal((await s.request('PUT', `/v1/links/${link.body.data.id}`, { json: examples['put /v1/links/{id}'] })).status, 200)
    const conversation = await s.request('POST', '/v1/conversations', { json: examples['post /v1/conversations'] })
    assert.equal(conversation.status, 201, JSON.stringify(conversation.body))
    const id = conversation.body.id // conversations answer the bare object (docs/api/conversations.md)
    assert.equal((await s.request('PUT', `/v1/conversations/${id}`, { json: examples['put /v1/conversations/{id}'] })).status, 200)
    assert.equal((await s.request('POST', `/v1/conversations/${id}/messages`, { json: examples['post /v1/conversations/{id}/messages'] })).status, 201)
    assert.equal((await s.request('POST', '/v1/domains', { json: examples['post /v1/domains'] })).status, 201)
    const bulk = await s.request('POST', '/v1/links/bulk', { json: examples['post /v1/links/bulk'] })
    assert.ok(bulk.status === 200 && bulk.body.data.every((r: { ok: boolean }) => r.ok), JSON.stringify(bulk.body))
    assert.equal((await s.request('POST', '/v1/links/bulk-delete', { json: examples['post /v1/links/bulk-delete'] })).status, 200)
  })

  test('every operation has a summary and a description, which names the scope it needs', () => {
    type Operation = { summary?: string; description?: string }
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops as Record<string, Operation>).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, ...op })),
    )
    const missing = operations.filter((o) => !o.summary || !o.description || o.description.length < 40).map((o) => o.name)
    assert.deepEqual(missing, [])
    assert.match(doc.paths['/v1/links'].post.description, /Needs the `links:write` scope.*Recorded in the audit log\./s)
    assert.doesNotMatch(doc.paths['/healthz'].get.description, /scope/)
    assert.doesNotMatch(doc.paths['/v1/links/{id}/check'].post.description, /audit log/, 'declared as recording nothing')
  })

  test('every text field of an answer has a real example, so that /docs shows no "string" placeholders', () => {
    type Schema = { type?: string; examples?: unknown[]; enum?: unknown[]; const?: unknown; format?: string; properties?: Record<string, Schema> }
    const bare: string[] = []
    const walk = (schema: unknown, where: string): void => {
      if (schema === null || typeof schema !== 'object') return
      if (Array.isArray(schema)) return schema.forEach((s) => walk(s, where))
      const s = schema as Schema
      if (s.type === 'string' && s.examples === undefined && s.enum === undefined && s.const === undefined && s.format === undefined) bare.push(where)
      for (const [key, value] of Object.entries(s)) {
        if (key === 'properties') for (const [name, property] of Object.entries(value as Record<string, Schema>)) walk(property, `${where}.${name}`)
        else walk(value, where)
      }
    }
    type Operation = { responses?: Record<string, { content?: Record<string, { schema: unknown }> }> }
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [code, answer] of Object.entries(operation.responses ?? {})) {
          if (code.startsWith('2')) walk(answer.content?.['application/json']?.schema, `${method.toUpperCase()} ${path} ${code}`)
        }
      }
    }
    for (const [name, schema] of Object.entries(doc.components.schemas)) walk(schema, name)
    assert.deepEqual(bare, [])
  })

  test("the document is Linkline's: its version, and an operationId on every operation", () => {
    assert.deepEqual([doc.info.title, doc.info.version], ['Linkline API', PACKAGE_VERSION])
    const ids = Object.values(doc.paths).flatMap((operations) => Object.values(operations as Record<string, { operationId: string }>).map((o) => o.operationId))
    assert.ok(
      ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)),
      ids.join(' '),
    )
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique')
    assert.equal(doc.paths['/v1/links/{id}/stats'].get.operationId, 'getLinksByIdStats')
    assert.deepEqual(doc.paths['/healthz'].get.security, [], 'the probes need no token')
  })

  test('/docs is titled and branded Linkline, and its CSP works over plain HTTP', async () => {
    const page = await s.request('GET', '/docs/', { token: null })
    assert.equal(page.status, 200)
    assert.match(page.text, /<title>Linkline API<\/title>/)
    assert.match(page.text, /theme\/favicon\.svg/)
    assert.doesNotMatch(page.text, /favicon-32x32\.png/, "not the framework's icon")
    assert.match((await s.request('GET', '/docs/static/theme/linkline.css', { token: null })).text, /\.topbar \{ display: none \}/)
    for (const path of ['/docs/', '/docs/static/swagger-initializer.js', '/docs/static/swagger-ui-bundle.js']) {
      const csp = String((await s.request('GET', path, { token: null })).headers['content-security-policy'])
      assert.match(csp, /default-src 'self'/, path)
      assert.match(csp, /script-src 'self'/, path)
      // With it, a browser at http://<LAN address>/docs fetches the scripts over https and shows nothing.
      assert.doesNotMatch(csp, /upgrade-insecure-requests/, path)
    }
  })
})
