import fc, { type Arbitrary } from 'fast-check'
import { fixture, type Owner, type Resource } from './fuzz-fixtures.js'
import { anyJson, hostileString, longString } from './hostile-values.js'
import type { JsonSchema } from './openapi-arbitraries.js'

/** Values for the OpenAPI fuzz test (test/openapi-arbitraries.ts) by a field's JSON schema: mostly valid, sometimes hostile. */
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
export const destination: Arbitrary<string> = fc.oneof(
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
export function validValue(schema: JsonSchema, name?: string): Arbitrary<unknown> {
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
export function fieldValue(schema: JsonSchema, name?: string): Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: validValue(schema, name) }, { weight: 1, arbitrary: invalidValue(schema) })
}

const hostileKey = fc.oneof(hostileString, fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'ownerId', 'success', 'a[b]', ''))

export function objectFor(schema: JsonSchema, mode: 'valid' | 'fuzz'): Arbitrary<Record<string, unknown>> {
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
