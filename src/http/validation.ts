import type { FastifyRequest, FastifySchema } from 'fastify'
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import { invalidBody, notFound, validationError, type AppError } from '../shared/errors.js'
import { nestedTooDeep } from './parsing.js'

interface JsonSchema {
  type?: string | string[]
  anyOf?: JsonSchema[]
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
}

/**
 * Form values and query strings are strings, so the API defines coercion: booleans accept
 * true|false|1|0, integers decimal digits only, an empty string for a nullable field is null, and
 * an object parameter may come JSON-encoded. Applied to every encoding, guided by the route's schema,
 * before Ajv (which runs with its own coercion off) validates.
 */
export function coerce(value: unknown, schema: JsonSchema | undefined): unknown {
  if (schema === undefined) return value
  if (schema.anyOf) {
    if (value === '' && schema.anyOf.some((s) => s.type === 'null')) return null
    const nonNull = schema.anyOf.filter((s) => s.type !== 'null')
    return nonNull.length === 1 ? coerce(value, nonNull[0]) : value
  }
  if (typeof value === 'string') {
    switch (schema.type) {
      case 'boolean':
        return value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value
      case 'integer':
        return /^\d{1,15}$/.test(value) ? Number(value) : value
      case 'object':
        return coerceJsonObject(value, schema)
      case 'array':
        return coerceList(value, schema)
      default:
        return value
    }
  }
  if (schema.type === 'object' && schema.properties && isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) value[key] = coerce(child, schema.properties[key])
  }
  if (schema.type === 'array' && Array.isArray(value)) return value.map((item) => coerce(item, schema.items))
  return value
}

/**
 * A list from a form: repeated fields arrive as an array already; a single field is a list of one,
 * an empty one the empty list, and a JSON-encoded array (`rules=[{…}]`) is accepted too.
 */
function coerceList(value: string, schema: JsonSchema): unknown {
  if (value === '') return []
  if (value.startsWith('[') && !nestedTooDeep(value)) {
    try {
      const parsed: unknown = JSON.parse(value)
      if (Array.isArray(parsed)) return parsed.map((item) => coerce(item, schema.items))
    } catch {
      // Not JSON: a one-element list, like any other single value.
    }
  }
  return [coerce(value, schema.items)]
}

/** A JSON-encoded object; text nested too deep (or not JSON) stays text, which the schema refuses. */
function coerceJsonObject(value: string, schema: JsonSchema): unknown {
  if (nestedTooDeep(value)) return value
  try {
    const parsed: unknown = JSON.parse(value)
    return isPlainObject(parsed) ? coerce(parsed, schema) : value
  } catch {
    return value
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * U+0000: PostgreSQL cannot store the character at all and SQLite would truncate it in places.
 * A lone surrogate (a JSON `"\ud800"` without its pair) is not Unicode: both drivers store it as
 * U+FFFD, so the answer to a write would differ from every later read of it.
 * Every text field of every resource refuses both up front, the same on both backends.
 */
const hasNul = (s: string) => s.includes('\u0000')
const hasLoneSurrogate = (s: string) => /\p{Cs}/u.test(s)

/** The parameter (in the API's bracket notation) of the first string that `matches`, if any. */
export function findText(value: unknown, matches: (s: string) => boolean, param = ''): string | undefined {
  if (typeof value === 'string') return matches(value) ? param : undefined
  // A raw body (an uploaded image) is bytes, not text.
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return undefined
  for (const [key, child] of Object.entries(value)) {
    const found = findText(child, matches, param === '' ? key : `${param}[${key}]`)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * preValidation hook: the NUL check, coercion, and a JSON body that is not an object is `invalid_body`.
 * An id holding NUL names no resource: 404, as the API orders resource checks before parameters.
 */
export async function coerceRequest(req: FastifyRequest): Promise<void> {
  if (findText(req.params, hasNul) !== undefined) throw notFound('resource')
  const schema = req.routeOptions.schema as (FastifySchema & { body?: JsonSchema; querystring?: JsonSchema }) | undefined
  if (schema?.querystring) req.query = coerce(req.query, schema.querystring)
  // A body that is text as it is (an import file) is the route's to read: no fields to coerce or check.
  const textBody = schema?.body?.type === 'string'
  if (schema?.body && !textBody) {
    if (req.body === undefined) req.body = {}
    if (!isPlainObject(req.body)) throw invalidBody('the body must be a JSON object or form fields')
    req.body = coerce(req.body, schema.body)
  }
  // After coercion, which may have decoded a JSON-encoded parameter.
  for (const part of textBody ? [req.query] : [req.query, req.body]) {
    const nul = findText(part, hasNul)
    if (nul !== undefined) throw validationError(nul, `${nul} must not contain the NUL character (U+0000)`)
    const surrogate = findText(part, hasLoneSurrogate)
    if (surrogate !== undefined) throw validationError(surrogate, `${surrogate} must be valid Unicode: it holds a lone surrogate (U+D800-U+DFFF)`)
  }
}

/** Ajv's first error as the API's `validation_error`, naming the offending parameter. */
export function toValidationError(errors: FastifySchemaValidationError[], context: string): AppError {
  const error = errors[0] as FastifySchemaValidationError & { parentSchema?: Record<string, unknown> }
  const segments = (error?.instancePath ?? '').split('/').filter(Boolean)
  const extra = error?.params as { missingProperty?: string; additionalProperty?: string } | undefined
  if (extra?.missingProperty) segments.push(extra.missingProperty)
  if (extra?.additionalProperty) segments.push(extra.additionalProperty)
  const param = segments.length === 0 ? context : segments.map((s, i) => (i === 0 ? s : `[${s}]`)).join('')
  if (error?.keyword === 'required') return validationError(param, `${param} is required`)
  if (error?.keyword === 'additionalProperties') return validationError(param, `unknown parameter ${param}`)
  const custom = error?.parentSchema?.['x-error']
  const message = typeof custom === 'string' ? custom : `${param} ${error ? humanRule(error.keyword, error.params) : 'is invalid'}`
  return validationError(param, message)
}

const TYPE_NAMES: Record<string, string> = {
  boolean: 'true or false',
  integer: 'a whole number',
  number: 'a number',
  string: 'text',
  object: 'an object',
  array: 'a list',
  null: 'null',
}

/** What Ajv's rule asks for, in the words of our own messages rather than Ajv's (`must NOT have fewer than 1 characters`). */
function humanRule(keyword: string, params: Record<string, unknown>): string {
  const limit = params.limit as number
  switch (keyword) {
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).join(', ')}`
    case 'type':
      return `must be ${String(params.type)
        .split(',')
        .map((t) => TYPE_NAMES[t] ?? t)
        .join(' or ')}`
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters`
    case 'maxLength':
      return `must be at most ${limit} characters`
    case 'minimum':
      return `must be at least ${limit}`
    case 'maximum':
      return `must be at most ${limit}`
    case 'minItems':
      return `must hold at least ${limit} item(s)`
    case 'maxItems':
      return `must hold at most ${limit} item(s)`
    case 'format':
      return `must be a valid ${String(params.format)}`
    case 'pattern':
      return 'is not in the expected form'
    default:
      return 'is invalid'
  }
}
