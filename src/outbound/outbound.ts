import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'
import { isPublicAddress } from '../shared/outbound-address.js'
import { VERSION } from '../shared/version.js'
import { guardedLookup, PrivateAddressError, refusedAddress, systemResolve, type Resolve } from './resolve.js'

/**
 * The one client for requests Linkline itself makes (webhook deliveries, page titles, destination
 * checks): http and https only, the address checked on every hop (IP literals before connecting,
 * names after resolution, at connect time), a deadline over the whole exchange, a cap on the body read
 * and a bounded number of redirects. Nothing else in src/ opens outbound HTTP connections.
 */

export interface OutboundRequest {
  readonly url: string
  /** Default GET. */
  readonly method?: 'GET' | 'HEAD' | 'POST'
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  /** Redirects followed, default 5; 0 follows none: a 3xx is returned as is. */
  readonly redirects?: number
  /** Body bytes read, default 1 MiB; reading stops there and the answer says `truncated`. */
  readonly maxBytes?: number
  /** The whole exchange, redirects and body included, default 10 s. */
  readonly timeoutMs?: number
}

export interface OutboundResponse {
  readonly status: number
  /** The final URL, after redirects. */
  readonly url: string
  readonly headers: IncomingHttpHeaders
  /** At most maxBytes (empty for HEAD). */
  readonly body: Buffer
  readonly truncated: boolean
}

export type OutboundFailure = 'invalid_url' | 'private_address' | 'dns' | 'tls' | 'timeout' | 'connection' | 'too_many_redirects'

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    message: string,
  ) {
    super(message)
    this.name = 'OutboundError'
  }
}

/** Resolves with any HTTP answer (any status); rejects only with OutboundError. */
export type OutboundFetch = (request: OutboundRequest) => Promise<OutboundResponse>

export const OUTBOUND_REDIRECTS = 5
export const OUTBOUND_MAX_BYTES = 1_048_576
export const OUTBOUND_TIMEOUT_MS = 10_000
export const OUTBOUND_USER_AGENT = `Linkline/${VERSION} (+https://github.com/linkline)`

const REDIRECTS = new Set([301, 302, 303, 307, 308])
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL', 'ENONAME', 'ETIMEOUT', 'ENOTIMP', 'EREFUSED'])
/** Headers that stay with their origin: a redirect to another origin drops them. */
const CREDENTIALS = ['authorization', 'cookie', 'proxy-authorization']

export interface OutboundOptions {
  /** Lifts the address rule (LINKLINE_FETCH_ALLOW_PRIVATE). */
  readonly allowPrivate: boolean
  /** How host names are resolved; by default `node:dns`. */
  readonly resolve?: Resolve
  readonly userAgent?: string
  /**
   * The address rule, by default isPublicAddress (shared/outbound-address.ts). Only tests replace it, to
   * stand a second loopback address in for a public server while every other address keeps the rule.
   */
  readonly isPublic?: (address: string) => boolean
}

export function createOutboundFetch(options: OutboundOptions): OutboundFetch {
  const rule = options.isPublic ?? isPublicAddress
  const allowed = options.allowPrivate ? () => true : rule
  const lookup = guardedLookup(options.resolve ?? systemResolve, allowed)
  const userAgent = options.userAgent ?? OUTBOUND_USER_AGENT

  /** The address rule for a URL whose host is an IP literal (no lookup happens for those). */
  const checkLiteral = (url: URL) => {
    const literal = url.hostname.replace(/^\[|\]$/g, '')
    if (isIP(literal) !== 0 && !allowed(literal)) {
      throw new OutboundError('private_address', `${url.host} is ${refusedAddress(literal)}`)
    }
  }

  /** Sends one request; resolves once the answer's head is in. */
  const send = (url: URL, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const request = url.protocol === 'https:' ? httpsRequest : httpRequest
      const req = request(url, { method, agent: false, lookup, signal, headers }, resolve)
      req.on('error', reject)
      req.end(body)
    })

  return async (request) => {
    const timeoutMs = request.timeoutMs ?? OUTBOUND_TIMEOUT_MS
    const maxRedirects = request.redirects ?? OUTBOUND_REDIRECTS
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), timeoutMs)
    timer.unref()
    let method: string = request.method ?? 'GET'
    let body = request.body
    const headers: Record<string, string> = { 'user-agent': userAgent }
    for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value
    try {
      let url = parseUrl(request.url)
      for (let followed = 0; ; followed++) {
        checkLiteral(url)
        const sent = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) }
        const res = await send(url, method, sent, body, controller.signal)
        const status = res.statusCode ?? 0
        const location = res.headers.location
        if (maxRedirects > 0 && REDIRECTS.has(status) && location !== undefined) {
          res.destroy()
          if (followed >= maxRedirects) throw new OutboundError('too_many_redirects', `more than ${maxRedirects} redirects (the last to ${location})`)
          const next = parseUrl(location, url)
          if (next.origin !== url.origin) for (const name of CREDENTIALS) delete headers[name]
          // As browsers do (the Fetch standard): 303 turns anything but HEAD into GET, 301 and 302 turn POST into GET.
          if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
            method = 'GET'
            body = undefined
            delete headers['content-type']
          }
          url = next
          continue
        }
        const read =
          method === 'HEAD' ? { body: Buffer.alloc(0), truncated: false } : await readBody(res, request.maxBytes ?? OUTBOUND_MAX_BYTES, controller.signal)
        return { status, url: url.href, headers: res.headers, ...read }
      }
    } catch (error) {
      throw classify(error, controller.signal.aborted, timeoutMs)
    } finally {
      clearTimeout(timer)
    }
  }
}

function parseUrl(raw: string, base?: URL): URL {
  let url: URL
  try {
    url = new URL(raw, base)
  } catch {
    throw new OutboundError('invalid_url', `${JSON.stringify(raw)} is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundError('invalid_url', `${url.protocol} URLs are not fetched, only http: and https:`)
  return url
}

/** Reads at most maxBytes of a body; past that the connection is closed (whatever the server still sends). */
function readBody(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<{ body: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      signal.removeEventListener('abort', onAbort)
      res.destroy()
      outcome()
    }
    const finish = (truncated: boolean) => settle(() => resolve({ body: Buffer.concat(chunks, size), truncated }))
    const onAbort = () => settle(() => reject(signal.reason as Error))
    signal.addEventListener('abort', onAbort, { once: true })
    res.on('data', (chunk: Buffer) => {
      const room = maxBytes - size
      if (chunk.length <= room) {
        chunks.push(chunk)
        size += chunk.length
        return
      }
      chunks.push(chunk.subarray(0, room))
      size += room
      finish(true)
    })
    res.on('end', () => finish(false))
    res.on('error', (error) => settle(() => reject(error)))
  })
}

const isTlsError = (error: NodeJS.ErrnoException): boolean =>
  /CERT|^ERR_TLS_|^ERR_SSL_|^EPROTO$|^HOSTNAME_MISMATCH$/.test(error.code ?? '') || 'library' in error || 'reason' in error

function classify(error: unknown, timedOut: boolean, timeoutMs: number): OutboundError {
  if (error instanceof OutboundError) return error
  if (timedOut) return new OutboundError('timeout', `no answer within ${timeoutMs / 1000} s`)
  if (error instanceof PrivateAddressError) return new OutboundError('private_address', error.message)
  const failure = error as NodeJS.ErrnoException
  const message = failure instanceof Error ? failure.message : String(error)
  if (DNS_CODES.has(failure.code ?? '')) return new OutboundError('dns', message)
  if (failure instanceof Error && isTlsError(failure)) return new OutboundError('tls', message)
  return new OutboundError('connection', message)
}
