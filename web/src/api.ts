// The dashboard's one way to the server: the same /v1 API and typed client (sdk/) as every other
// client, authenticated by the session cookie (HttpOnly: this code never sees it, and no token is
// ever kept in the browser).
import createClient from 'openapi-fetch'
import { serializeQuery, type ErrorBody, type operations, type paths, type Schema } from '../../sdk/index'
export type { operations } from '../../sdk/index'
export type AuditEntry = Schema<'AuditEntry'>

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null,
  ) {
    super(message)
  }
}

/** Listeners told when the session is gone (401), so the app can show the sign-in page. */
const signedOutListeners = new Set<() => void>()
export const onSignedOut = (listener: () => void) => {
  signedOutListeners.add(listener)
  return () => signedOutListeners.delete(listener)
}

type Query = Record<string, string | number | boolean | undefined | null>

/** A URL with its query, empty values left out: for links the browser follows itself (a download). */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v))
  const q = params.toString()
  return q === '' ? path : `${path}?${q}`
}

/**
 * The typed client (openapi-fetch over sdk/'s types, as createLinklineClient builds it), on this
 * origin: the browser sends the session cookie with each request.
 */
export const client = createClient<paths>({ baseUrl: '', credentials: 'same-origin', querySerializer: serializeQuery })

/** What every client call resolves to: the parsed body on success, the parsed error body otherwise. */
interface Result<T> {
  data?: T
  error?: unknown
  response: Response
}

function errorOf(response: Response, body: unknown): ApiError {
  const error = (body as Partial<ErrorBody> | undefined)?.error
  if (typeof error?.code === 'string' && typeof error.message === 'string') return new ApiError(response.status, error.code, error.message, error.param ?? null)
  // Not our error shape: a proxy's page, an empty body.
  return new ApiError(response.status, 'http_error', `the server answered ${response.status} ${response.statusText}`, null)
}

/**
 * Awaits a client call (`call(client.GET('/v1/links'))`); resolves to its body, or throws an ApiError
 * in the API's own words. A 401 tells the app the session is gone, unless `quietUnauthorized`.
 */
export async function call<T>(request: Promise<Result<T>>, options: { quietUnauthorized?: boolean } = {}): Promise<T> {
  let result: Result<T>
  try {
    result = await request
  } catch (e) {
    // fetch rejects with a TypeError when no answer came back at all.
    if (e instanceof TypeError) throw new ApiError(0, 'network_error', 'the server cannot be reached; check the connection and try again', null)
    throw e
  }
  const { data, error, response } = result
  if (response.ok) return data as T
  if (response.status === 401 && !options.quietUnauthorized) signedOutListeners.forEach((l) => l())
  throw errorOf(response, error)
}

const LEADS: Record<string, string> = {
  validation_error: 'Please check this value',
  invalid_body: 'The request could not be read',
  unauthorized: 'You are signed out',
  not_signed_in: 'Not signed in',
  forbidden: 'Your role or token does not allow this',
  not_found: 'Not found',
  conflict: 'This clashes with something that exists',
  last_owner: 'A workspace keeps at least one owner',
  gone: 'This link can no longer be used',
  rate_limited: 'Too many requests; wait a moment and try again',
  payload_too_large: 'This is too large',
  service_unavailable: 'The server is busy; try again in a moment',
  internal_error: 'Something went wrong on the server',
  network_error: 'No connection',
}

/** A sentence for a person: what kind of problem, then the server's own explanation. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error)
  const lead = LEADS[error.code] ?? `Error ${error.status}`
  // A message that opens with the field's own name (`maxClicks must be …`) keeps its spelling.
  const named = error.param !== null && error.message.startsWith(error.param)
  const message = named ? error.message : error.message.charAt(0).toUpperCase() + error.message.slice(1)
  return `${lead}: ${message}${/[.!?]$/.test(message) ? '' : '.'}`
}

// The API's resources, as the generated types describe them.
export type Link = Schema<'Link'>
export type Domain = Schema<'Domain'>
export type Me = Schema<'Me'>
export type User = Schema<'User'>
export type Member = Schema<'Member'>
export type Role = Member['role']
export type Invitation = Schema<'Invitation'>
/** A one-time link (a password reset), shown only in the response that made it. */
export type OneTimeLink = operations['postMembersByUserIdPasswordReset']['responses'][201]['content']['application/json']['data']
export type Stats = Schema<'LinkStats'>
export type Breakdown = Stats['referrers'][number]
export type MissingPath = Schema<'MissingPath'>
export type Token = Schema<'Token'>
export type Conversation = Schema<'Conversation'>
export type Message = Schema<'Message'>
export type Webhook = Schema<'Webhook'>
/** A new webhook endpoint, with its signing secret: shown in the response that made it only. */
export type NewWebhook = operations['postWebhooks']['responses'][201]['content']['application/json']['data']
export type WebhookDelivery = Schema<'WebhookDelivery'>
