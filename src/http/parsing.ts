import type { FastifyInstance } from 'fastify'
import { invalidBody, validationError } from '../shared/errors.js'

type Params = Record<string, unknown>

/** More fields than any route takes, with room for typos to be reported one by one. */
const MAX_FIELDS = 256
/** A repeated key is refused by every schema anyway; this bounds the work before it is. */
const MAX_REPEATS = 32

/**
 * Parses a query string or a form body in one linear pass. Bracket notation builds nested objects
 * (`query[title]=Sale` → `{ query: { title: 'Sale' } }`); a repeated key becomes an array, which the
 * schema then rejects. Objects have no prototype, so `__proto__` or `constructor` is an own key like any
 * other, which the schema refuses as an unknown parameter. `limited` bounds the fields and repeats
 * (400 beyond): bodies are; a query string is bounded by the size of the request head, and its parser
 * must not throw (it runs inside the router, where a throw is not caught).
 */
export function parseParams(input: string, limited = true): Params {
  if (limited && tooManyFields(input)) throw invalidBody(`the body has more than ${MAX_FIELDS} fields`)
  const out: Params = Object.create(null)
  for (const [rawKey, value] of new URLSearchParams(input)) {
    const match = /^([^[\]]+)\[([^[\]]*)\]$/.exec(rawKey)
    const [key, sub] = match ? [match[1] as string, match[2] as string] : [rawKey, undefined]
    let target: Params = out
    let leaf = key
    if (sub !== undefined) {
      const existing = out[key]
      if (typeof existing !== 'object' || existing === null || Array.isArray(existing)) out[key] = Object.create(null)
      target = out[key] as Params
      leaf = sub
    }
    const previous = target[leaf]
    if (previous === undefined) target[leaf] = value
    else if (!Array.isArray(previous)) target[leaf] = [previous, value]
    else if (previous.push(value) > MAX_REPEATS && limited) throw validationError(rawKey, `${rawKey} is repeated more than ${MAX_REPEATS} times`)
  }
  return out
}

/** Counts separators before anything is decoded: a body of 20,000 empty fields is refused in microseconds. */
function tooManyFields(input: string): boolean {
  let fields = 1
  for (let at = input.indexOf('&'); at !== -1; at = input.indexOf('&', at + 1)) if (++fields > MAX_FIELDS) return true
  return false
}

/** JSON and form bodies; anything else is 415 (Fastify's own answer to an unknown content type). */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    if (body === '') return done(null, undefined)
    try {
      done(null, JSON.parse(body as string))
    } catch {
      done(invalidBody('the body is not valid JSON'), undefined)
    }
  })
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseParams(body as string))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
}
