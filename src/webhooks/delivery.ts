import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'
import { describeAddress, isPublicAddress } from '../shared/outbound-address.js'
import { guardedLookup, PrivateAddressError, type Resolve } from './addresses.js'

/** Any 2xx within this is a delivery (docs/api/webhooks.md#delivery). */
export const DELIVERY_TIMEOUT_MS = 10_000
/** The most of a receiver's response body kept in the delivery log; the rest is never read. */
export const EXCERPT_BYTES = 512

export interface AttemptResult {
  /** The receiver's status code, when it answered. */
  readonly statusCode?: number
  /** Why the attempt failed before (or instead of) an answer: timeout, refused address, connection error. */
  readonly error?: string
  readonly excerpt?: string
}

/**
 * One POST to a receiver: no redirect is followed (a 3xx is a failed attempt), the whole exchange
 * is bounded by DELIVERY_TIMEOUT_MS, only the first EXCERPT_BYTES of the answer are read, and the
 * address connected to is checked at connect time (guardedLookup) as well as for IP literals here.
 */
export function postOnce(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: { resolve: Resolve; allowPrivate: boolean; timeoutMs?: number },
): Promise<AttemptResult> {
  const url = new URL(target)
  const literal = url.hostname.replace(/^\[|\]$/g, '')
  if (!options.allowPrivate && isIP(literal) !== 0 && !isPublicAddress(literal)) {
    return Promise.resolve({ error: new PrivateAddressError(`${describeAddress(literal)} is a private, loopback or link-local address`).message })
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve) => {
    let settled = false
    const finish = (result: AttemptResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.destroy()
      resolve(result)
    }
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        lookup: guardedLookup(options.resolve, options.allowPrivate),
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Linkline-Webhooks/1' },
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        const done = () => finish({ statusCode: res.statusCode, excerpt: Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_BYTES) })
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk)
          size += chunk.length
          if (size >= EXCERPT_BYTES) done()
        })
        res.on('end', done)
        res.on('error', done)
      },
    )
    const timer = setTimeout(
      () => finish({ error: `no answer within ${(options.timeoutMs ?? DELIVERY_TIMEOUT_MS) / 1000} s` }),
      options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    )
    timer.unref()
    req.on('error', (error) => finish({ error: error.message }))
    req.end(body)
  })
}
