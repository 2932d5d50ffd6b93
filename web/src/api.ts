// The dashboard's one way to the server: the same /v1 API as every other client, authenticated by
// the session cookie (HttpOnly: this code never sees it, and no token is ever kept in the browser).

export interface ApiErrorBody {
  code: string
  message: string
  param: string | null
}

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

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v))
  const q = params.toString()
  return q === '' ? path : `${path}?${q}`
}

async function errorOf(res: Response): Promise<ApiError> {
  try {
    const body = (await res.json()) as { error?: ApiErrorBody }
    if (body.error) return new ApiError(res.status, body.error.code, body.error.message, body.error.param)
  } catch {
    // not our error shape: a proxy's page, a network cut
  }
  return new ApiError(res.status, 'http_error', `the server answered ${res.status} ${res.statusText}`, null)
}

/** Sends a request; resolves to the parsed body, or throws an ApiError in the API's own words. */
export async function api<T>(method: string, path: string, options: { query?: Query; body?: unknown; quietUnauthorized?: boolean } = {}): Promise<T> {
  let res: Response
  try {
    res = await fetch(withQuery(path, options.query), {
      method,
      credentials: 'same-origin',
      headers: options.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    })
  } catch {
    throw new ApiError(0, 'network_error', 'the server cannot be reached; check the connection and try again', null)
  }
  if (!res.ok) {
    const error = await errorOf(res)
    if (res.status === 401 && !options.quietUnauthorized) signedOutListeners.forEach((l) => l())
    throw error
  }
  return (await res.json()) as T
}

/** Fetches an image (a QR code): a blob on success, the API error otherwise. */
export async function apiBlob(path: string, query: Query): Promise<Blob> {
  const res = await fetch(withQuery(path, query), { credentials: 'same-origin' })
  if (!res.ok) throw await errorOf(res)
  return res.blob()
}

const LEADS: Record<string, string> = {
  validation_error: 'Please check this value',
  invalid_body: 'The request could not be read',
  unauthorized: 'You are signed out',
  forbidden: 'Your token does not allow this',
  not_found: 'Not found',
  conflict: 'This clashes with something that exists',
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

export interface Link {
  id: string
  title: string | null
  domain: string
  path: string
  destination: string
  shortUrl: string
  createdAt: string
  updatedAt: string
  ownerId: string
  redirectType?: 301 | 302 | 307 | 308
  expiresAt?: string | null
  maxClicks?: number | null
  expiredUrl?: string | null
  hasPassword?: boolean
  tags?: string[]
  [field: string]: unknown
}
export interface Domain {
  name: string
  isDefault: boolean
  status: 'pending' | 'verified'
  createdAt: string | null
  verification: { type: string; name: string; value: string } | null
}
export interface Me {
  ownerId: string
  scopes: string[]
  tokenId: string
  via: 'session' | 'bearer'
}
export interface Breakdown {
  value: string
  clicks: number
}
export interface Stats {
  linkId: string
  from: string
  to: string
  interval: 'hour' | 'day' | 'month'
  totalClicks: number
  humanClicks: number
  botClicks: number
  qrScans: number
  uniqueVisitors: number
  lastClickedAt: string | null
  timeseries: { start: string; clicks: number }[]
  referrers: Breakdown[]
  browsers: Breakdown[]
  os: Breakdown[]
  devices: Breakdown[]
  countries: Breakdown[]
}
export interface Token {
  id: string
  name: string | null
  scopes: string[]
  prefix: string
  createdAt: string
  current?: boolean
  token?: string
}
export interface Conversation {
  id: string
  contact_id: string | null
  group_id: string | null
  link_id: string | null
  pinned_message_id: string | null
  is_pinned: boolean
  is_muted: boolean
  last_active_at: number | null
  last_opened_at: number | null
  created_at: number
  archived_at: number | null
}
export interface Message {
  id: string
  conversation_id: string
  direction: 'outbound' | 'inbound'
  text: string
  created_at: number
}
export interface Envelope<T> {
  success: true
  data: T
}
