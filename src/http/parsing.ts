import type { FastifyInstance } from 'fastify'
import { invalidBody, validationError } from '../shared/errors.js'

type Params = Record<string, unknown>

/** More fields than any route takes, with room for typos to be reported one by one. */
const MAX_FIELDS = 256
/** A repeated key is refused by every schema anyway; this bounds the work before it is. */
const MAX_REPEATS = 32
/** Deeper than any schema goes: a deeper JSON text is refused before anything walks it recursively. */
export const MAX_JSON_DEPTH = 64

/**
 * Whether JSON text opens more than MAX_JSON_DEPTH arrays and objects at once, counted in one pass over
 * the text (strings skipped) before it is parsed: the NUL check, coercion and Ajv all recurse, and a
 * body of 10,000 nested brackets would overflow the stack in them (a 500 for anyone, unauthenticated).
 */
export function nestedTooDeep(text: string): boolean {
  let depth = 0
  for (let at = 0; at < text.length; at++) {
    const c = text.charCodeAt(at)
    if (c === 0x22) {
      // A string: skip to its closing quote, over escaped characters.
      for (at++; at < text.length && text.charCodeAt(at) !== 0x22; at++) if (text.charCodeAt(at) === 0x5c) at++
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

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
    if (nestedTooDeep(body as string)) return done(invalidBody(`the body is nested deeper than ${MAX_JSON_DEPTH} levels`), undefined)
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
