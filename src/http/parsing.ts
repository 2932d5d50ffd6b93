import type { FastifyInstance } from 'fastify'
import { invalidBody } from '../shared/errors.js'

type Params = Record<string, unknown>

/**
 * Parses a query string or a form body. Bracket notation builds nested objects
 * (`query[title]=Sale` → `{ query: { title: 'Sale' } }`); a repeated key becomes an array, which the
 * schema then rejects. Keys that would reach an object's prototype are dropped.
 */
export function parseParams(input: string): Params {
  const out: Params = Object.create(null)
  for (const [rawKey, value] of new URLSearchParams(input)) {
    const match = /^([^[\]]+)\[([^[\]]*)\]$/.exec(rawKey)
    const [key, sub] = match ? [match[1] as string, match[2] as string] : [rawKey, undefined]
    if (key === '__proto__' || sub === '__proto__') continue
    let target: Params = out
    let leaf = key
    if (sub !== undefined) {
      const existing = out[key]
      if (typeof existing !== 'object' || existing === null || Array.isArray(existing)) out[key] = Object.create(null)
      target = out[key] as Params
      leaf = sub
    }
    const previous = target[leaf]
    target[leaf] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value]
  }
  return out
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
    done(null, parseParams(body as string))
  })
}
