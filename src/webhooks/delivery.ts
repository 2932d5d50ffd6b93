import { OutboundError, type OutboundFailure, type OutboundFetch } from '../outbound/outbound.js'

/** Any 2xx within this is a delivery (docs/api/webhooks.md#delivery). */
export const DELIVERY_TIMEOUT_MS = 10_000
/** The most of a receiver's response body kept in the delivery log; the rest is never read. */
export const EXCERPT_BYTES = 512

export interface AttemptResult {
  /** The receiver's status code, when it answered. */
  readonly statusCode?: number
  /** Why the attempt failed before (or instead of) an answer: timeout, refused address, connection error. */
  readonly error?: string
  /** What kind of failure `error` is (`private_address`: refused, never sent). */
  readonly failure?: OutboundFailure
  readonly excerpt?: string
}

/**
 * One POST to a receiver through the guarded outbound client: no redirect is followed (a 3xx is a
 * failed attempt), the whole exchange is bounded by DELIVERY_TIMEOUT_MS and only the first
 * EXCERPT_BYTES of the answer are read.
 */
export async function postOnce(
  outbound: OutboundFetch,
  target: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs?: number } = {},
): Promise<AttemptResult> {
  try {
    const answer = await outbound({
      url: target,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'Linkline-Webhooks/1' },
      body,
      redirects: 0,
      maxBytes: EXCERPT_BYTES,
      timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    })
    return { statusCode: answer.status, excerpt: answer.body.toString('utf8') }
  } catch (error) {
    if (error instanceof OutboundError) return { error: error.message, failure: error.kind }
    throw error
  }
}
