import createClient, { type Client, type ClientOptions } from 'openapi-fetch'
import type { components, paths } from './schema.js'

/**
 * The typed client of the Linkline API: openapi-fetch over the types generated from the server's
 * OpenAPI document (sdk/schema.d.ts), so a path, a parameter or a field the server does not have is a
 * compile error. Every call resolves to `{ data }` or `{ error }` (the one error shape), never throws
 * on an HTTP status.
 */
export type LinklineClient = Client<paths>

export type { components, operations, paths } from './schema.js'

/** A resource as the server sends it, by its schema name: `Schema<'Link'>`, `Schema<'LinkStats'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name]

/** The body of every error response: `{ success: false, error: { code, message, param } }`. */
export type ErrorBody = Schema<'ErrorBody'>

export interface LinklineClientOptions extends Omit<ClientOptions, 'baseUrl' | 'headers'> {
  /** Sent with every request, beside the token. */
  headers?: Record<string, string>
}

/**
 * A client of the server at `baseUrl` (`https://links.example`; '' for the page's own origin).
 * With a `token` (an API token, `ll_…`) every request carries it as a Bearer credential; without
 * one, requests carry what the fetch implementation sends, as the dashboard's session cookie.
 */
export function createLinklineClient(baseUrl: string, token?: string, options: LinklineClientOptions = {}): LinklineClient {
  const headers = token === undefined ? options.headers : { ...options.headers, authorization: `Bearer ${token}` }
  return createClient<paths>({ querySerializer: serializeQuery, ...options, baseUrl, headers })
}

/**
 * A query string as the API reads it: an object's fields in brackets (`query[title]=Sale`), a list as
 * its name repeated, inside an object too (`query[tag]=a&query[tag]=b`). openapi-fetch's own would
 * send a list inside an object as one value joined with commas (`query[tag]=a,b`: one tag "a,b").
 */
export function serializeQuery(query: Record<string, unknown>): string {
  const out = new URLSearchParams()
  const add = (name: string, value: unknown): void => {
    if (value === undefined || value === null) return
    if (Array.isArray(value)) for (const item of value) add(name, item)
    else if (typeof value === 'object') for (const [key, field] of Object.entries(value)) add(`${name}[${key}]`, field)
    else out.append(name, String(value))
  }
  for (const [name, value] of Object.entries(query)) add(name, value)
  return out.toString()
}
