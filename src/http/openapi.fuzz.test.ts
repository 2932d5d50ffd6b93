import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import fc from 'fast-check'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { send, type Response } from '../../test/http-client.js'
import {
  describeRequest,
  Fixture,
  operationsOf,
  requestFor,
  toWire,
  visitCase,
  type GeneratedRequest,
  type OpenApiDocument,
  type Operation,
  type Resource,
  type WireRequest,
} from '../../test/openapi-arbitraries.js'

/**
 * Property-based test of the whole API, driven by the OpenAPI document the server publishes
 * (docs/testing.md): every operation gets generated valid and hostile requests, on every backend.
 * Seeded: a failure prints the seed and the shrunk request; re-run it with LINKLINE_FUZZ_SEED.
 */
const SEED = Number(process.env.LINKLINE_FUZZ_SEED ?? 20261123)
const RUNS = Number(process.env.LINKLINE_FUZZ_RUNS ?? 60)

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** The codes docs/api/README.md#errors allows for each status. */
const ERROR_CODES: Record<number, string[]> = {
  400: ['validation_error', 'invalid_body'],
  401: ['unauthorized'],
  403: ['forbidden'],
  404: ['not_found'],
  405: ['method_not_allowed'],
  409: ['conflict', 'idempotency_key_reused'],
  410: ['gone'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  429: ['rate_limited'],
  431: ['payload_too_large'],
}
/** What must never reach a client: driver codes, SQL, stack frames, file paths. */
const LEAK = /SQLITE_|node_modules|\n\s+at |\bat \S+ \(|\/src\/|\/dist\/|syntax error|relation "|violates|duplicate key|TypeError|ReferenceError/

const decodes = (segment: string) => {
  try {
    decodeURIComponent(segment)
    return true
  } catch {
    return false
  }
}

const MISSING: Record<Resource, string> = {
  links: 'lnk_00000000000000000000000000',
  conversations: 'conv_00000000000000000000000000',
  messages: 'msg_00000000000000000000000000',
  domains: 'missing.fuzz.example',
  tokens: 'tok_00000000000000000000000000',
  webhooks: 'whk_00000000000000000000000000',
  deliveries: 'dlv_00000000000000000000000000',
  members: 'usr_00000000000000000000000000',
  invitations: 'inv_00000000000000000000000000',
}

/**
 * Operations a bearer token (all this test sends) can never succeed at: signing in takes a token in
 * the body and is open to anyone, signing out and changing one's password need a person's session
 * cookie, and accepting an invitation, resetting a password and the setup need a one-time secret that
 * only a link shows. They still get every hostile request and must keep the error shape;
 * src/sessions/sessions.test.ts and src/invitations/*.test.ts cover their successes.
 */
const SESSION_ONLY = new Set([
  'POST /v1/sessions',
  'DELETE /v1/sessions/current',
  'PUT /v1/sessions/current',
  'PATCH /v1/sessions/current',
  'POST /v1/me/password',
  'POST /v1/invitations/accept',
  'POST /v1/password-reset',
  'POST /v1/setup',
])
/** Operations any caller may make, whatever its scopes: signing out everywhere (a token's sessions). */
const NO_SCOPE = new Set(['DELETE /v1/sessions'])

for (const backend of backends) {
  describe(`API fuzz, from /v1/openapi.json (${backend})`, () => {
    let s: TestServer
    let doc: OpenApiDocument
    let tokens: { owner: string; bogus: string; 'read-only': string; other: string }
    const ids = new Map<string, string>()

    const call = (token: string, method: string, path: string, json?: unknown) => send(s.url, method, path, { token, json, headers: { host: s.host } })

    /**
     * One resource of each kind for the caller ("own") and for another owner ("other"). Requests
     * may delete the caller's: they are made again after every successful DELETE.
     */
    async function ensureFixtures(owner: 'own' | 'other'): Promise<void> {
      const token = owner === 'own' ? tokens.owner : tokens.other
      const exists = async (resource: Resource, path: string) => ids.has(`${owner}:${resource}`) && (await call(token, 'GET', path)).status === 200
      const created = async (path: string, json: unknown) => {
        const r = await call(token, 'POST', path, json)
        assert.ok(r.status === 200 || r.status === 201, `fixture ${path}: ${r.status} ${r.text}`)
        return r.body
      }
      if (!(await exists('links', `/v1/links/${ids.get(`${owner}:links`)}`))) {
        ids.set(`${owner}:links`, (await created('/v1/links', { destination: `https://${owner}.example/fixture` })).data.id)
      }
      const conversation = ids.get(`${owner}:conversations`)
      if (
        !(await exists('conversations', `/v1/conversations/${conversation}`)) ||
        !(await exists('messages', `/v1/conversations/${conversation}/messages/${ids.get(`${owner}:messages`)}`))
      ) {
        const c = await created('/v1/conversations', { contact_id: `${owner}-fixture-${ids.size}-${Date.now()}` })
        ids.set(`${owner}:conversations`, c.id)
        ids.set(`${owner}:messages`, (await created(`/v1/conversations/${c.id}/messages`, { text: 'fixture' })).id)
      }
      // A token of the owner's other than the one this test calls with: revoking it may succeed.
      if (
        !(await exists('tokens', '/v1/tokens')) ||
        !(await call(token, 'GET', '/v1/tokens')).body.data.some((t: { id: string }) => t.id === ids.get(`${owner}:tokens`))
      ) {
        ids.set(`${owner}:tokens`, (await created('/v1/tokens', { name: `${owner} fixture`, scopes: ['links:read'] })).data.id)
      }
      // A webhook endpoint, with one delivery (a test event) in its log; deliveries go with their endpoint.
      if (!(await exists('webhooks', `/v1/webhooks/${ids.get(`${owner}:webhooks`)}`))) {
        const hook = (await created('/v1/webhooks', { url: `https://${owner}.example/hook`, events: ['*'] })).data
        ids.set(`${owner}:webhooks`, hook.id)
        const ping = await call(token, 'POST', `/v1/webhooks/${hook.id}/test`)
        assert.equal(ping.status, 202, `fixture webhook test: ${ping.text}`)
        ids.set(`${owner}:deliveries`, ping.body.data.id)
      }
      // People in the workspace (an invitation accepted): one whom the member operations may change or
      // remove, and an owner they never name, so that the workspace keeps one whatever they did.
      const join = async (role: string) => {
        const invitation = await created('/v1/invitations', { email: `${owner}-${role}-${ids.size}-${Date.now()}@fuzz.example`, role })
        const secret = String(invitation.data.url).split('/').pop()
        const accepted = await send(s.url, 'POST', '/v1/invitations/accept', {
          json: { secret, name: `${owner} ${role}`, password: 'a fixture password' },
          headers: { host: s.host },
        })
        assert.equal(accepted.status, 201, `fixture ${role}: ${accepted.text}`)
        return accepted.body.data.userId as string
      }
      if (!ids.has(`${owner}:owner`)) ids.set(`${owner}:owner`, await join('owner'))
      const members = (await call(token, 'GET', '/v1/members')).body.data as { userId: string }[]
      if (!members.some((m) => m.userId === ids.get(`${owner}:members`))) ids.set(`${owner}:members`, await join('member'))
      const invitations = (await call(token, 'GET', '/v1/invitations')).body.data as { id: string }[]
      if (!invitations.some((i) => i.id === ids.get(`${owner}:invitations`))) {
        ids.set(`${owner}:invitations`, (await created('/v1/invitations', { email: `${owner}-invited@fuzz.example`, role: 'viewer' })).data.id)
      }
      // The workspace's logo for QR codes, which reading and removing it need.
      if ((await call(token, 'GET', '/v1/workspace/logo')).status !== 200) {
        const logo = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><rect width="1" height="1"/></svg>'
        const put = await send(s.url, 'PUT', '/v1/workspace/logo', {
          raw: logo,
          headers: { host: s.host, authorization: `Bearer ${token}`, 'content-type': 'image/svg+xml' },
        })
        assert.equal(put.status, 200, `fixture logo: ${put.text}`)
      }
      // Two custom domains: one that links are put on (a `domain` field), and one that stays free of
      // links so that deleting it (a path parameter) can succeed rather than be 409.
      const domains = (await call(token, 'GET', '/v1/domains')).body.data as { name: string }[]
      for (const [key, domain] of [
        [`${owner}:domains`, `${owner}-fuzz.example`],
        [`${owner}:domains:field`, `${owner}-links.fuzz.example`],
      ] as const) {
        if (!domains.some((d) => d.name === domain)) await created('/v1/domains', { name: domain })
        ids.set(key, domain)
      }
    }

    const resolve = (f: Fixture): string => {
      if (f.owner === 'missing') return MISSING[f.resource]
      if (f.owner === 'default') return s.host
      const id = ids.get(`${f.owner}:${f.resource}${f.inField && f.resource === 'domains' ? ':field' : ''}`)
      assert.ok(id, `no fixture for ${f}`)
      return id
    }

    let validateResponse: (op: Operation, status: number, body: unknown) => string | undefined

    before(async () => {
      // Custom domains are usable at once (no DNS check): links are created and visited on them.
      s = await startTestServer({
        backend,
        env: { LINKLINE_RATE_LIMIT: '10000000', LINKLINE_ANONYMOUS_RATE_LIMIT: '10000000', LINKLINE_DOMAIN_VERIFICATION: 'off' },
      })
      tokens = {
        owner: s.token,
        bogus: 'll_not_a_token_of_this_server',
        'read-only': await s.createToken('alice', ['links:read', 'conversations:read', 'domains:read']),
        other: await s.createToken('bob'),
      }
      const r = await send(s.url, 'GET', '/v1/openapi.json', { headers: { host: s.host } })
      assert.equal(r.status, 200)
      doc = r.body
      // An owner of alice's workspace who is never a fixture: the member fixture can be made owner and
      // then demoted or removed, which the last owner cannot.
      await s.container.accounts.join((await s.container.accounts.createUser({ email: 'owner@fuzz.example', name: 'Owner' })).id, 'alice', 'owner')
      await ensureFixtures('own')
      await ensureFixtures('other')

      // The document itself is the schema store: `#/components/schemas/Link` resolves inside it.
      const ajv = new Ajv2020({ strict: false, allErrors: false })
      addFormats(ajv)
      ajv.addSchema(doc, 'openapi.json')
      validateResponse = (op, status, body) => {
        const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.responses[k] !== undefined)
        if (key === undefined) return `status ${status} is not documented`
        const content = op.responses[key]?.content?.['application/json']
        if (!content?.schema) return undefined
        const validate = ajv.getSchema(`openapi.json${op.pointer}/responses/${key}/content/application~1json/schema`)
        assert.ok(validate, `no schema for ${op.method} ${op.template} ${key}`)
        return validate(body) ? undefined : ajv.errorsText(validate.errors)
      }
    })
    after(() => s?.close())

    /** Everything the API reference promises of any answer. Throws with the request and the response. */
    function check(op: Operation, request: GeneratedRequest, wire: WireRequest, res: Response): void {
      const context = `\n--- request\n${describeRequest(wire)}\n--- response\n${res.status} ${res.headers['content-type'] ?? ''}\n${res.text.slice(0, 800)}`
      assert.ok(res.status < 500, `5xx${context}`)
      assert.ok(res.headers['x-request-id'], `no X-Request-Id${context}`)
      // The order of checks (docs/api/README.md#authentication-owners-and-scopes): authentication, then scope, before the route and the parameters.
      // Only what the HTTP parser or the router refuses before any hook runs comes first (docs/api/README.md#conventions):
      // headers over the limit (431), a segment that is not UTF-8 or is over 1024 characters (404).
      const unreadable = res.status === 431 || (wire.path.split('?')[0] as string).split('/').some((segment) => segment.length > 1024 || !decodes(segment))
      // Open to anyone: signing in (its token comes in the body) and what a one-time secret authorises.
      if (op.template.startsWith('/v1/') && !unreadable && !op.open) {
        if (request.auth === 'none' || request.auth === 'bogus') assert.equal(res.status, 401, `not 401 without a valid token${context}`)
        else if (
          request.auth === 'read-only' &&
          op.method !== 'GET' &&
          !SESSION_ONLY.has(`${op.method} ${op.template}`) &&
          !NO_SCOPE.has(`${op.method} ${op.template}`)
        )
          assert.equal(res.status, 403, `not 403 without the scope${context}`)
      }
      if (res.status >= 400) {
        checkError(res, context)
        return
      }
      assert.ok(res.status < 300 || res.status === 304, `unexpected status${context}`)
      const media =
        String(res.headers['content-type'] ?? '')
          .split(';')[0]
          ?.trim() ?? ''
      const key = [String(res.status), `${String(res.status)[0]}XX`].find((k) => op.responses[k] !== undefined)
      const content = key === undefined ? undefined : op.responses[key]?.content
      if (content && res.status !== 304) assert.ok(media in content, `Content-Type ${media} is not documented${context}`)
      if (media === 'application/json') {
        const problem = validateResponse(op, res.status, res.body)
        assert.equal(problem, undefined, `the body breaks the response schema: ${problem}${context}`)
      }
      // Another owner's resource is a 404 for the caller, wherever its id appears.
      const others = [...Object.values(request.path), ...(request.body?.kind === 'value' ? Object.values(request.body.value ?? {}) : [])]
      assert.ok(!others.some((v) => v instanceof Fixture && v.owner === 'other'), `another owner's resource was accepted${context}`)
    }

    function checkError(res: Response, context: string): void {
      assert.match(String(res.headers['content-type']), /^application\/json/, `an error that is not JSON${context}`)
      const body = res.body as { success?: unknown; error?: Record<string, unknown> }
      assert.deepEqual(Object.keys(body).sort(), ['error', 'success'], `not the error shape${context}`)
      assert.equal(body.success, false, `not the error shape${context}`)
      const error = body.error ?? {}
      assert.ok(
        Object.keys(error).every((k) => ['code', 'message', 'param'].includes(k)),
        `extra keys in error${context}`,
      )
      assert.ok(ERROR_CODES[res.status]?.includes(String(error.code)), `code ${String(error.code)} does not go with ${res.status}${context}`)
      assert.ok(typeof error.message === 'string' && error.message !== '', `no message${context}`)
      assert.doesNotMatch(error.message, LEAK, `the message leaks internals${context}`)
      // `param` is absent on some errors today and null on others (401/403/404 are moving to null):
      // both are accepted until every error carries the key.
      assert.ok(error.param === undefined || error.param === null || typeof error.param === 'string', `param is not a string or null${context}`)
      if (error.code === 'validation_error') assert.equal(typeof error.param, 'string', `a validation_error that names no parameter${context}`)
      if (res.status === 401) assert.equal(res.headers['www-authenticate'], 'Bearer', `401 without WWW-Authenticate${context}`)
      if (res.status === 405) assert.ok(res.headers.allow, `405 without Allow${context}`)
    }

    /**
     * A successful write is what a read of the resource then answers: nothing the client sent is
     * changed on the way to the database (a character replaced, a string cut, a number rounded).
     * The read is the GET of the same path (an update) or of the new id under it (a create).
     */
    async function checkReadBack(op: Operation, operations: Operation[], wire: WireRequest, res: Response): Promise<void> {
      if (!['POST', 'PUT', 'PATCH'].includes(op.method) || res.status >= 300 || res.headers['idempotent-replayed']) return
      // A webhook's signing secret is shown in the answer to its creation only.
      const written = { ...(res.body?.data ?? res.body) } as { id?: unknown; secret?: unknown }
      delete written.secret
      const path = wire.path.split('?')[0] as string
      const readPath = op.method === 'POST' ? `${path}/${String(written?.id)}` : path
      const readTemplate = op.method === 'POST' ? `${op.template}/{` : op.template
      const read = operations.find(
        (o) =>
          o.method === 'GET' &&
          (o.template === readTemplate ||
            (readTemplate.endsWith('{') && o.template.startsWith(readTemplate) && !o.template.slice(readTemplate.length).includes('/'))),
      )
      if (!read || typeof written?.id !== 'string') return
      const again = await send(s.url, 'GET', readPath, { token: tokens.owner, headers: { host: s.host } })
      assert.deepEqual(
        again.body?.data ?? again.body,
        written,
        `a read disagrees with the write\n--- request\n${describeRequest(wire)}\n--- then GET ${readPath}`,
      )
    }

    test('every operation: no 5xx, the one error shape, 2xx bodies match the document', async (t) => {
      const operations = operationsOf(doc)
      assert.ok(operations.length >= 20, `only ${operations.length} operations in the document`)
      for (const op of operations) {
        await t.test(`${op.method} ${op.template}`, async () => {
          // What the generated requests got, e.g. `400 validation_error destination`: a coverage failure shows it.
          const outcomes = new Map<string, number>()
          // Public statistics answer for public links only: the caller's fixture is made public (again: an
          // update may have closed it), the other owner's stays private, so that its id is still a 404.
          if (op.template.startsWith('/v1/public/')) {
            const opened = await call(tokens.owner, 'PATCH', `/v1/links/${ids.get('own:links')}`, { publicStats: true })
            assert.equal(opened.status, 200, opened.text)
          }
          await fc.assert(
            fc.asyncProperty(requestFor(op), async (request) => {
              const wire = toWire(request, resolve, tokens)
              let res: Response
              try {
                res = await send(s.url, wire.method, wire.path, { raw: wire.body, headers: { host: s.host, ...wire.headers } })
              } catch (error) {
                throw new Error(`no answer (${String(error)})\n--- request\n${describeRequest(wire)}`, { cause: error })
              }
              const outcome = `${res.status} ${res.body?.error?.code ?? ''} ${res.body?.error?.param ?? ''}`.trim()
              outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
              check(op, request, wire, res)
              await checkReadBack(op, operations, wire, res)
              if (wire.method === 'DELETE' && res.status < 300) await ensureFixtures('own')
            }),
            { seed: SEED, numRuns: RUNS },
          )
          // Not vacuous: the generators reach the operation's success and its errors alike.
          const seen = (test: (status: number) => boolean) => [...outcomes.keys()].some((o) => test(Number(o.split(' ')[0])))
          const report = JSON.stringify(Object.fromEntries(outcomes), null, 1)
          if (!SESSION_ONLY.has(`${op.method} ${op.template}`))
            assert.ok(
              seen((status) => status < 300),
              `never a 2xx: ${report}`,
            )
          if (op.template.startsWith('/v1/'))
            assert.ok(
              seen((status) => status >= 400),
              `never a 4xx: ${report}`,
            )
        })
      }
    })

    test('links with generated destinations redirect with a valid Location, or answer 404', async () => {
      let redirected = 0
      await fc.assert(
        fc.asyncProperty(visitCase, async ({ link: generated, encoding, method, suffix }) => {
          const { domain, ...fields } = generated
          const link = { ...fields, ...(domain ? { domain: resolve(domain) } : {}) }
          const body = encoding === 'json' ? { json: link } : { form: link }
          const created = await s.request('POST', '/v1/links', body)
          const context = `\n--- create (${encoding})\n${JSON.stringify(link)}\n→ ${created.status} ${created.text.slice(0, 500)}`
          assert.ok(created.status === 201 || (created.status >= 400 && created.status < 500), `create${context}`)
          const target =
            created.status === 201
              ? (created.body.data as { domain: string; path: string; destination: string })
              : { domain: s.host, path: link.path ?? '/unknown-fuzz-path', destination: undefined }
          let visit: Response
          try {
            visit = await send(s.url, method, target.path + suffix, { headers: { host: target.domain } })
          } catch (error) {
            throw new Error(`no answer to ${method} ${target.path + suffix} (${String(error)})${context}`, { cause: error })
          }
          const visitContext = `${context}\n--- visit\n${method} ${target.path + suffix}\n→ ${visit.status} ${JSON.stringify(visit.headers.location)}`
          assert.ok(visit.status < 500, `5xx${visitContext}`)
          if (created.status !== 201) return // a refused link's path may name a page of the service itself
          assert.equal(visit.status, 302, visitContext)
          const location = String(visit.headers.location)
          assert.match(location, /^[\x21-\x7e]+$/, `Location is not printable ASCII${visitContext}`)
          assert.match(new URL(location).protocol, /^https?:$/, visitContext)
          if (suffix === '' || suffix === '/') assert.equal(location, target.destination, visitContext)
          redirected++
        }),
        { seed: SEED, numRuns: RUNS * 2 },
      )
      assert.ok(redirected > 0, 'no generated link was ever created')
    })

    test('the server is alive and reported no contained fault', async () => {
      assert.equal((await send(s.url, 'GET', '/healthz')).status, 200)
      assert.equal((await send(s.url, 'GET', '/readyz')).status, 200)
      const metrics = (await send(s.url, 'GET', '/metrics')).text
      const faults = metrics.split('\n').filter((line) => line.startsWith('linkline_faults_total') && !/ 0$/.test(line))
      assert.deepEqual(faults, [])
    })
  })
}
