import fc, { type Arbitrary } from 'fast-check'
import { Fixture, fixture, resourceOfPathParam, type Resolve, type Resource } from './fuzz-fixtures.js'
import { anyJson, hostileString } from './hostile-values.js'
import { images, mislabelledImages, rawBodies } from './raw-bodies.js'
import { destination, fieldValue, objectFor, validValue } from './schema-values.js'

/**
 * fast-check generators derived from the OpenAPI document the server publishes: for each operation,
 * requests whose parameters and bodies are mostly valid by the operation's JSON schemas and often
 * hostile (random unicode with astral characters, lone surrogates, bidi controls and combining marks;
 * control characters and NUL; huge, negative and fractional numbers; wrong types; unknown fields; long
 * strings; broken encodings), and ids that exist, that do not, or that belong to another owner.
 * Used by src/http/openapi.fuzz.test.ts (docs/testing.md).
 */

export { Fixture, type Resource } from './fuzz-fixtures.js'

export interface JsonSchema {
  $ref?: string
  type?: string | string[]
  enum?: unknown[]
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  maxItems?: number
  pattern?: string
  examples?: unknown[]
}

interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie'
  name: string
  required?: boolean
  schema: JsonSchema
  /** The document moves a parameter schema's `examples` here (@fastify/swagger), by name. */
  examples?: Record<string, { value: unknown }>
}

/** A parameter's schema with its examples back in it, for the generators to draw from. */
const withExamples = (p: Parameter): JsonSchema => (p.examples ? { ...p.schema, examples: Object.values(p.examples).map((e) => e.value) } : p.schema)

interface ResponseObject {
  content?: Record<string, { schema?: JsonSchema }>
}

interface OperationObject {
  parameters?: Parameter[]
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema; example?: unknown }> }
  responses: Record<string, ResponseObject>
  security?: unknown[]
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>
  components?: { schemas?: Record<string, JsonSchema> }
}

export interface Operation {
  method: string
  /** The OpenAPI path template, e.g. `/v1/links/{id}`. */
  template: string
  pathParams: Parameter[]
  queryParams: Parameter[]
  body?: JsonSchema
  /** A body that is a file's text (an import), in any of these content types, instead of a JSON or form body; valid requests send the example. */
  text?: { contentTypes: string[]; example: string }
  /** A body taken as raw bytes (an uploaded image), in these media types. */
  rawTypes?: string[]
  responses: Record<string, ResponseObject>
  /** The JSON pointer of the operation in the document, for Ajv references. */
  pointer: string
  /** Open to anyone (`security: []`): signing in, and what a one-time secret in the body authorises. */
  open: boolean
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']
const pointerSegment = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1')

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = []
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue
      const parameters = op.parameters ?? []
      const { schema: json, example } = op.requestBody?.content['application/json'] ?? {}
      const text = json?.type === 'string' ? { contentTypes: Object.keys(op.requestBody?.content ?? {}), example: String(example ?? '') } : undefined
      operations.push({
        method: method.toUpperCase(),
        template,
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        body: text ? undefined : json,
        ...(text && { text }),
        ...(op.requestBody && !json && { rawTypes: Object.keys(op.requestBody.content) }),
        responses: op.responses,
        pointer: `#/paths/${pointerSegment(template)}/${method}`,
        open: Array.isArray(op.security) && op.security.length === 0,
      })
    }
  }
  return operations
}

// ---------------------------------------------------------------------------------------------
// Requests.

export type Encoding = 'json' | 'form'
export type Auth = 'owner' | 'none' | 'bogus' | 'read-only'

export type Body = { kind: 'value'; encoding: Encoding; value: unknown } | { kind: 'raw'; contentType: string; text: string | Buffer }

export interface GeneratedRequest {
  method: string
  template: string
  path: Record<string, Fixture | { raw: string }>
  query: Record<string, unknown>
  /** Appended to the query string as is: unknown and malformed parameters. */
  rawQuery: string
  body?: Body
  auth: Auth
  idempotencyKey?: string
}

// No `.` or `..`: every WHATWG URL client (this test's included) resolves them before sending.
const rawSegments = fc.constantFrom('%', '%zz', '%ff%fe', '%00', '%2F', 'a%2Fb', '%E2%80%AE', 'x'.repeat(2000), '%F0%9F%98%80', '%C0%AF')
const rawQueries = fc.constantFrom(
  '',
  '',
  '',
  'unknown=1',
  '%ff=%fe',
  'a[b][c]=1',
  '__proto__[x]=1',
  'query[',
  'limit=1&limit=2',
  '=&&=',
  'query=%7Bbad',
  'x=' + 'y'.repeat(5000),
)

const pathSlot = (resource: Resource | undefined): Arbitrary<Fixture | { raw: string }> =>
  fc.oneof(
    ...(resource ? [{ weight: 6, arbitrary: fixture(resource) }] : []),
    { weight: 1, arbitrary: hostileString.map((s) => ({ raw: percentEncode(s) })) },
    { weight: 1, arbitrary: rawSegments.map((raw) => ({ raw })) },
  )

/**
 * Requests for `operation`: half of them valid by its schemas (the caller's own resources, the
 * owner's token), so that its success path runs; the other half hostile in every part.
 */
export function requestFor(operation: Operation): Arbitrary<GeneratedRequest> {
  return fc
    .oneof(validRequestFor(operation), hostileRequestFor(operation))
    .map((request) => Object.defineProperty(request, fc.toStringMethod, { value: () => summarize(request), enumerable: false }))
}

function validRequestFor(operation: Operation): Arbitrary<GeneratedRequest> {
  const path = fc.record(
    Object.fromEntries(
      operation.pathParams.map((p) => {
        const resource = resourceOfPathParam(operation.template, p.name)
        return [p.name, resource ? fixture(resource, ['own', 'own', 'own', 'own', 'other', 'missing']) : pathSlot(undefined)]
      }),
    ),
  )
  const query = fc.record(Object.fromEntries(operation.queryParams.map((p) => [p.name, validValue(withExamples(p), p.name)])), { requiredKeys: [] })
  const body: Arbitrary<Body | undefined> = operation.text
    ? textBody(operation.text, fc.constant(operation.text.example))
    : operation.rawTypes
      ? images.map((b) => ({ kind: 'raw' as const, ...b }))
      : operation.body
        ? fc.record({ kind: fc.constant('value' as const), encoding: fc.constantFrom<Encoding>('json', 'form'), value: objectFor(operation.body, 'valid') })
        : fc.constant(undefined)
  return fc.record({
    method: fc.constant(operation.method),
    template: fc.constant(operation.template),
    path,
    query,
    rawQuery: fc.constant(''),
    body,
    auth: fc.constant<Auth>('owner'),
    idempotencyKey: fc.constant(undefined),
  })
}

function hostileRequestFor(operation: Operation): Arbitrary<GeneratedRequest> {
  const path = fc.record(Object.fromEntries(operation.pathParams.map((p) => [p.name, pathSlot(resourceOfPathParam(operation.template, p.name))])))
  const query = fc.record(Object.fromEntries(operation.queryParams.map((p) => [p.name, fieldValue(withExamples(p), p.name)])), { requiredKeys: [] })
  const raw = rawBodies.map((b) => ({ kind: 'raw' as const, ...b }))
  const value = (encoding: Arbitrary<Encoding>, value: Arbitrary<unknown>) => fc.record({ kind: fc.constant('value' as const), encoding, value })
  const body: Arbitrary<Body | undefined> = operation.text
    ? fc.oneof({ weight: 8, arbitrary: textBody(operation.text, hostileString) }, { weight: 1, arbitrary: raw })
    : operation.rawTypes
      ? fc.oneof(images, mislabelledImages, rawBodies).map((b) => ({ kind: 'raw' as const, ...b }))
      : operation.body
        ? fc.oneof(
            { weight: 8, arbitrary: value(fc.constantFrom<Encoding>('json', 'json', 'form'), objectFor(operation.body, 'fuzz')) },
            { weight: 1, arbitrary: value(fc.constant<Encoding>('json'), anyJson) },
            { weight: 1, arbitrary: raw },
          )
        : fc.option(raw, { freq: 10, nil: undefined })
  const auth = fc.constantFrom<Auth>('owner', 'owner', 'owner', 'owner', 'owner', 'owner', 'owner', 'none', 'bogus', 'read-only')
  const idempotencyKey =
    operation.method === 'POST' ? fc.option(fc.constantFrom('k1', 'k2', 'k3', 'x'.repeat(300), 'é'), { freq: 3, nil: undefined }) : fc.constant(undefined)
  return fc.record({
    method: fc.constant(operation.method),
    template: fc.constant(operation.template),
    path,
    query,
    rawQuery: rawQueries,
    body,
    auth,
    idempotencyKey,
  })
}

/** A text body (an import file) in one of the operation's content types. */
const textBody = (text: NonNullable<Operation['text']>, content: Arbitrary<string>): Arbitrary<Body> =>
  fc.record({ kind: fc.constant('raw' as const), contentType: fc.constantFrom(...text.contentTypes), text: content })

/** How fast-check prints a counterexample: one line, long strings cut. */
function summarize(request: GeneratedRequest): string {
  return JSON.stringify(request, (_key, value: unknown) =>
    typeof value === 'string' && value.length > 120 ? `${value.slice(0, 60)}…(${value.length} characters)` : value,
  )
}

// ---------------------------------------------------------------------------------------------
// Encoding on the wire.

/** Percent-encodes the UTF-8 bytes of `s` (a lone surrogate becomes U+FFFD), as a path segment. */
function percentEncode(s: string): string {
  return [...Buffer.from(s, 'utf8')]
    .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('')
}

function resolveDeep(value: unknown, resolve: Resolve): unknown {
  if (value instanceof Fixture) return resolve(value)
  if (Array.isArray(value)) return value.map((v) => resolveDeep(v, resolve))
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, { value: resolveDeep(v, resolve), enumerable: true, writable: true, configurable: true })
    return out
  }
  return value
}

/** The API's form and query encoding: `key[sub]=v` for objects, repeated keys for arrays, `''` for null. */
function appendParams(params: URLSearchParams, key: string, value: unknown, nested = false): void {
  if (value === null) params.append(key, '')
  else if (Array.isArray(value))
    for (const item of value) appendParams(params, key, typeof item === 'object' && item !== null ? JSON.stringify(item) : item, true)
  else if (typeof value === 'object') {
    if (nested) params.append(key, JSON.stringify(value))
    else for (const [sub, v] of Object.entries(value)) appendParams(params, `${key}[${sub}]`, v, true)
  } else params.append(key, String(value))
}

export interface WireRequest {
  method: string
  path: string
  headers: Record<string, string>
  body?: string | Buffer
}

export function toWire(request: GeneratedRequest, resolve: Resolve, tokens: Record<Exclude<Auth, 'none'>, string>): WireRequest {
  const operation = request
  let path = operation.template
  for (const [name, slot] of Object.entries(request.path)) {
    path = path.replace(`{${name}}`, slot instanceof Fixture ? percentEncode(resolve(slot)) : slot.raw)
  }
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(resolveDeep(request.query, resolve) as Record<string, unknown>)) appendParams(params, name, value)
  const query = [params.toString(), request.rawQuery].filter((q) => q !== '').join('&')
  if (query !== '') path += `?${query}`
  const headers: Record<string, string> = {}
  if (request.auth !== 'none') headers.authorization = `Bearer ${tokens[request.auth]}`
  if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey
  const body = request.body
  if (body === undefined) return { method: operation.method, path, headers }
  if (body.kind === 'raw') return { method: operation.method, path, headers: { ...headers, 'content-type': body.contentType }, body: body.text }
  const value = resolveDeep(body.value, resolve)
  if (body.encoding === 'json')
    return { method: operation.method, path, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(value) }
  const form = new URLSearchParams()
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) for (const [k, v] of Object.entries(value)) appendParams(form, k, v)
  return { method: operation.method, path, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() }
}

/** The request as a failure message shows it: escaped, and cut where it is long. */
export function describeRequest(wire: WireRequest): string {
  const cut = (s: string) => (s.length > 600 ? `${s.slice(0, 600)}… (${s.length} characters)` : s)
  const headers = Object.entries(wire.headers).map(([k, v]) => `${k}: ${k === 'authorization' ? v.replace(/ .*/, ' …') : v}`)
  return [`${wire.method} ${cut(wire.path)}`, ...headers, ...(wire.body === undefined ? [] : ['', cut(JSON.stringify(wire.body))])].join('\n')
}

// ---------------------------------------------------------------------------------------------
// Links to visit.

export interface VisitCase {
  /** `domain` is a default domain when absent, else the caller's custom domain. */
  link: { destination: string; path?: string; title?: string; domain?: Fixture }
  encoding: Encoding
  method: 'GET' | 'HEAD'
  /** Appended to the link's path on the visit: a trailing slash, a query. */
  suffix: string
}

const visitQueries = fc.oneof(
  fc.constantFrom('', '/', '?qr=1', '?a=1&a=2', '?%ff', '?x=%E2%80%AE', '/?qr=1&b=%00', '?&&=', '?utm_source=' + 'y'.repeat(3000)),
  hostileString.map((s) => `?${percentEncode(s)}=${percentEncode(s)}`),
)

export const visitCase: Arbitrary<VisitCase> = fc.record({
  link: fc.record(
    {
      destination,
      path: fc.stringMatching(/^\/[A-Za-z0-9._~-]{1,20}(\/[A-Za-z0-9._~-]{1,20}){0,2}$/),
      title: fc.oneof(hostileString, fc.string({ unit: 'grapheme', maxLength: 20 })),
      domain: fc.constant(new Fixture('domains', 'own', true)),
    },
    { requiredKeys: ['destination'] },
  ),
  encoding: fc.constantFrom<Encoding>('json', 'form'),
  method: fc.constantFrom<'GET' | 'HEAD'>('GET', 'HEAD'),
  suffix: visitQueries,
})
