import fc, { type Arbitrary } from 'fast-check'

/**
 * fast-check generators derived from the OpenAPI document the server publishes: for each operation,
 * requests whose parameters and bodies are mostly valid by the operation's JSON schemas and often
 * hostile (random unicode with astral characters, lone surrogates, bidi controls and combining marks;
 * control characters and NUL; huge, negative and fractional numbers; wrong types; unknown fields; long
 * strings; broken encodings), and ids that exist, that do not, or that belong to another owner.
 * Used by src/http/openapi.fuzz.test.ts (docs/testing.md).
 */

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
}

interface ResponseObject {
  content?: Record<string, { schema?: JsonSchema }>
}

interface OperationObject {
  parameters?: Parameter[]
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> }
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
  responses: Record<string, ResponseObject>
  /** The JSON pointer of the operation in the document, for Ajv references. */
  pointer: string
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']
const pointerSegment = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1')

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = []
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue
      const parameters = op.parameters ?? []
      operations.push({
        method: method.toUpperCase(),
        template,
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        body: op.requestBody?.content['application/json']?.schema,
        responses: op.responses,
        pointer: `#/paths/${pointerSegment(template)}/${method}`,
      })
    }
  }
  return operations
}

// ---------------------------------------------------------------------------------------------
// Resources the test server holds, named symbolically: a generated request says "an id of one of my
// links", and the test resolves it when it sends the request (fixtures are re-created after a DELETE).

export type Resource = 'links' | 'conversations' | 'messages' | 'domains' | 'tokens' | 'webhooks' | 'deliveries'
export type Owner = 'own' | 'other' | 'missing' | 'default'

export class Fixture {
  constructor(
    readonly resource: Resource,
    readonly owner: Owner,
    /** Named in a body or query field rather than in the path. */
    readonly inField = false,
  ) {}
  toString(): string {
    return `<${this.owner} ${this.resource}>`
  }
  toJSON(): string {
    return this.toString()
  }
}

export type Resolve = (fixture: Fixture) => string

const fixture = (resource: Resource, owners: Owner[] = ['own', 'other', 'missing'], inField = false) =>
  fc.constantFrom(...owners).map((owner) => new Fixture(resource, owner, inField))

/** The resource a path parameter names: the collection segment just before it (`/links/{id}` → links). */
function resourceOfPathParam(template: string, name: string): Resource | undefined {
  const segments = template.split('/')
  const at = segments.indexOf(`{${name}}`)
  const collection = segments[at - 1]
  return (['links', 'conversations', 'messages', 'domains', 'tokens', 'webhooks', 'deliveries'] as const).find((r) => r === collection)
}

// ---------------------------------------------------------------------------------------------
// Hostile values.

const char = (codes: number[]) => fc.constantFrom(...codes).map((c) => String.fromCharCode(c))
const controls = char([...Array.from({ length: 32 }, (_, i) => i), 0x7f, 0x85, 0x9f])
const loneSurrogates = fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', 'a\ud83d', '\ude00b')
const bidi = fc.constantFrom('\u202e', '\u202d', '\u200f', '\u2066', 'עברית', 'العربية', '\u202egnp.exe')
const combining = fc.constantFrom('e\u0301', 'a\u0300\u0301\u0302\u0303\u0304\u0305\u0306\u0307', '\u0301', 'ﷺ', 'ﷻ')
const oddities = fc.constantFrom(
  '\u0000',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\uffff',
  '\ufffd',
  '\u00a0',
  '\u200b',
  '👩‍👩‍👧',
  '🇩🇪',
  '𝕏',
  '日本語',
  'İ',
  'ß',
  'ﬁ',
  "' OR 1=1 --",
  '"; drop table links; --',
  '../../etc/passwd',
  '%00',
  '%ff',
  '%',
  '{{7*7}}',
  '${x}',
  '<script>',
  '__proto__',
  'constructor',
  'null',
  'true',
  '-1',
  '1e309',
  '0x10',
  ' ',
  '\\',
  '"',
  '[]',
  '{}',
)
const unicodeText = fc.string({ unit: 'binary', maxLength: 24 })

/** Short strings made of the pieces above, in any order. */
const hostileString: Arbitrary<string> = fc
  .array(fc.oneof(unicodeText, controls, loneSurrogates, bidi, combining, oddities, fc.string({ maxLength: 8 })), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(''))

/** Long strings: just over the usual limits, and over the 64 KiB body limit. */
const longString: Arbitrary<string> = fc
  .tuple(fc.constantFrom(129, 256, 2049, 4001, 70_000), fc.constantFrom('x', 'é', '😀', '\u0301', '\u0000'))
  .map(([n, c]) => c.repeat(n))

const hostileNumber: Arbitrary<number> = fc.oneof(
  fc.constantFrom(-1, 0, -0, 0.5, 1.5, -1.5, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, -(2 ** 53), 2 ** 63, 1e21, 5e-324, 253402300800),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
)

const anyJson: Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom([], {}, [1, 'a'], { a: 1 }, [null], { __proto__: 1 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
)

// ---------------------------------------------------------------------------------------------
// Values by schema.

const URL_FIELDS = new Set(['destination', 'url', 'expiredUrl', 'fallbackUrl'])
const FIXTURE_FIELDS: Record<string, Resource[]> = {
  link_id: ['links'],
  pinned_message_id: ['messages'],
  message_id: ['messages'],
  starting_after: ['conversations', 'messages'],
  ending_before: ['conversations', 'messages'],
  domain: ['domains'],
}

/** Destinations as users type them: plain, with unicode, spaces and controls, IDN hosts, other schemes. */
const destination: Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom('https://', 'http://', 'HTTPS://', 'https://user:pw@'),
        fc.constantFrom('ex.com', 'bücher.example', 'EXAMPLE.com:8443', '[::1]', '127.0.0.1', 'xn--bcher-kva.example', '日本.jp'),
        hostileString,
        hostileString,
      )
      .map(([scheme, host, path, query]) => `${scheme}${host}/${path}?q=${query}#${path}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      '/relative',
      '//ex.com/x',
      'https://',
      'http://exa mple.com/',
      'https://ex.com/\nx',
    ),
  },
  { weight: 1, arbitrary: hostileString },
)

const DATE_FIELDS = new Set(['from', 'to', 'expiresAt'])

/** Dates and date-times, near now and far from it, in the forms a client sends. */
const dateText: Arbitrary<string> = fc
  .tuple(
    fc.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
    fc.integer({ min: -40, max: 40 }),
    fc.constantFrom('date', 'iso', 'offset'),
  )
  .map(([far, days, form]) => {
    const date = days === 0 ? far : new Date(Date.now() + days * 86_400_000)
    const iso = date.toISOString()
    return form === 'date' ? iso.slice(0, 10) : form === 'iso' ? iso : `${iso.slice(0, 19)}+02:00`
  })

/** A value valid by `schema` (as far as its keywords say; the service's own rules may still refuse it). */
function validValue(schema: JsonSchema, name?: string): Arbitrary<unknown> {
  if (name !== undefined && URL_FIELDS.has(name)) return destination
  if (name !== undefined && DATE_FIELDS.has(name)) return fc.oneof({ weight: 3, arbitrary: dateText }, { weight: 1, arbitrary: validBySchema(schema) })
  const resources = name === undefined ? undefined : FIXTURE_FIELDS[name]
  const fromSchema = validBySchema(schema)
  if (!resources) return fromSchema
  const owners: Owner[] = resources.includes('domains') ? ['own', 'other', 'missing', 'default'] : ['own', 'other', 'missing']
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...resources).chain((r) => fixture(r, owners, true)) }, { weight: 1, arbitrary: fromSchema })
}

function validBySchema(schema: JsonSchema): Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum)
  const union = schema.anyOf ?? schema.oneOf
  if (union) return fc.oneof(...union.map((s) => validBySchema(s)))
  const examples = schema.examples?.length ? [fc.constantFrom(...schema.examples)] : []
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'string':
      return fc.oneof(...examples, stringFor(schema))
    case 'integer': {
      // Mostly near the minimum (a 4096-pixel QR code costs a hundred small ones), the bounds, and sometimes anywhere.
      const min = schema.minimum ?? -1000
      const max = Math.min(schema.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER)
      return fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min, max: Math.min(max, min + 100) }) },
        { weight: 1, arbitrary: fc.constantFrom(min, max) },
        { weight: 1, arbitrary: fc.integer({ min, max }) },
      )
    }
    case 'number':
      return fc.double({ min: schema.minimum, max: schema.maximum, noNaN: true, noDefaultInfinity: true })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array':
      return fc.array(schema.items ? validBySchema(schema.items) : anyJson, { maxLength: Math.min(schema.maxItems ?? 4, 4) })
    case 'object':
      return objectFor(schema, 'valid')
    default:
      return anyJson
  }
}

function stringFor(schema: JsonSchema): Arbitrary<string> {
  const maxLength = schema.maxLength ?? 64
  const fits = (s: string) => [...s].length <= maxLength && [...s].length >= (schema.minLength ?? 0)
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter(fits)
    } catch {
      // fast-check cannot generate from every regular expression (lookaheads): fall through to
      // generic strings, which will mostly break the pattern — still worth sending.
    }
  }
  const length = { minLength: schema.minLength ?? 0, maxLength: Math.min(maxLength, 40) }
  return fc.oneof(
    fc.string(length),
    fc.string({ ...length, unit: 'grapheme' }),
    hostileString.filter(fits),
    ...(maxLength > 40 ? [fc.constant('ü'.repeat(maxLength)), fc.constant('😀'.repeat(maxLength))] : []),
  )
}

/** A value that breaks `schema`: a wrong type, out of range, too long, off the pattern or the enum. */
function invalidValue(schema: JsonSchema): Arbitrary<unknown> {
  const breaking: Arbitrary<unknown>[] = [anyJson, longString]
  if (schema.maxLength !== undefined) breaking.push(fc.constant('😀'.repeat(schema.maxLength + 1)))
  if (schema.minimum !== undefined) breaking.push(fc.constant(schema.minimum - 1))
  if (schema.maximum !== undefined) breaking.push(fc.constant(schema.maximum + 1), fc.constant(schema.maximum * 1e6))
  return fc.oneof(...breaking)
}

/** Mostly valid, sometimes not. */
function fieldValue(schema: JsonSchema, name?: string): Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: validValue(schema, name) }, { weight: 1, arbitrary: invalidValue(schema) })
}

const hostileKey = fc.oneof(hostileString, fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'ownerId', 'success', 'a[b]', ''))

function objectFor(schema: JsonSchema, mode: 'valid' | 'fuzz'): Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {}
  const model = Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, mode === 'valid' ? validValue(s, key) : fieldValue(s, key)]))
  const required = (schema.required ?? []).filter((k) => k in properties)
  const withRequired = fc.record(model, { requiredKeys: required })
  if (mode === 'valid') {
    // Each field valid alone is not the whole story (title and display_name together are 400):
    // half the valid bodies carry the required fields and at most one other, as most clients send.
    const optional = Object.keys(properties).filter((k) => !required.includes(k))
    if (optional.length === 0) return withRequired
    const oneMore = fc
      .constantFrom(...optional)
      .chain((key) => fc.record(Object.fromEntries(Object.entries(model).filter(([k]) => k === key || required.includes(k)))))
    return fc.oneof(withRequired, oneMore)
  }
  const extra = fc.option(fc.dictionary(hostileKey, anyJson, { minKeys: 1, maxKeys: 2 }), { freq: 6, nil: undefined })
  return fc
    .tuple(fc.oneof({ weight: 6, arbitrary: withRequired }, { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) }), extra)
    .map(([fields, more]) => {
      // Unknown keys go in with defineProperty so that `__proto__` is a real key of the JSON body.
      const out: Record<string, unknown> = { ...fields }
      for (const [key, value] of Object.entries(more ?? {})) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
      return out
    })
}

// ---------------------------------------------------------------------------------------------
// Requests.

export type Encoding = 'json' | 'form'
export type Auth = 'owner' | 'none' | 'bogus' | 'read-only'

/** A raw body: malformed, not an object, or in a content type the API does not take. */
const rawBodies = fc.constantFrom(
  { contentType: 'application/json', text: '{"destination":' },
  { contentType: 'application/json', text: '[]' },
  { contentType: 'application/json', text: '"x"' },
  { contentType: 'application/json', text: 'null' },
  { contentType: 'application/json', text: '' },
  { contentType: 'application/json', text: '{"a":1,"a":2}' },
  { contentType: 'application/json', text: '{"__proto__":{"polluted":1}}' },
  { contentType: 'application/json', text: '\ufeff{}' },
  { contentType: 'application/json', text: '1'.repeat(400) },
  { contentType: 'application/json; charset=latin1', text: '{}' },
  { contentType: 'APPLICATION/JSON', text: '{}' },
  { contentType: 'text/plain', text: 'hello' },
  { contentType: 'multipart/form-data; boundary=x', text: '--x--' },
  { contentType: 'application/x-www-form-urlencoded', text: '%ff=%fe&a[b][c]=1&=&&a[=1' },
  { contentType: 'application/x-www-form-urlencoded', text: 'x'.repeat(70_000) },
)

export type Body = { kind: 'value'; encoding: Encoding; value: unknown } | { kind: 'raw'; contentType: string; text: string }

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
  const query = fc.record(Object.fromEntries(operation.queryParams.map((p) => [p.name, validValue(p.schema, p.name)])), { requiredKeys: [] })
  const body: Arbitrary<Body | undefined> = operation.body
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
  const query = fc.record(Object.fromEntries(operation.queryParams.map((p) => [p.name, fieldValue(p.schema, p.name)])), { requiredKeys: [] })
  const body: Arbitrary<Body | undefined> = operation.body
    ? fc.oneof(
        {
          weight: 8,
          arbitrary: fc.record({
            kind: fc.constant('value' as const),
            encoding: fc.constantFrom<Encoding>('json', 'json', 'form'),
            value: objectFor(operation.body, 'fuzz'),
          }),
        },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('value' as const), encoding: fc.constant<Encoding>('json'), value: anyJson }) },
        { weight: 1, arbitrary: rawBodies.map((b) => ({ kind: 'raw' as const, ...b })) },
      )
    : fc.option(
        rawBodies.map((b) => ({ kind: 'raw' as const, ...b })),
        { freq: 10, nil: undefined },
      )
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

/** Form and query encoding of the contract: `key[sub]=v` for objects, repeated keys for arrays, `''` for null. */
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
  body?: string
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
