import { OutboundError, type OutboundFetch } from '../outbound/outbound.js'
import type { HealthStatus } from '../links/links.table.js'

/** What one check of a destination found: `ok` false is a failure (`error` says which kind). */
export interface CheckOutcome {
  readonly ok: boolean
  /** The final HTTP status (after redirects), or null when no answer came. */
  readonly httpStatus: number | null
  /** `http_status` for a failing status, else the guarded client's failure kind; null on success. */
  readonly error: string | null
}

/** The bytes a GET check reads: the status is the verdict, the body is never looked at. */
export const CHECK_GET_BYTES = 1024

/** Statuses that say the page is there though we may not see it: never failures. */
const GUARDED = new Set([401, 403, 429])

/** Whether a status is a failure: 4xx but 401, 403, 429; 5xx. Anything below 400 is a success. */
export const failingStatus = (status: number): boolean => status >= 400 && !GUARDED.has(status)

/**
 * Checks `url` through the guarded client: HEAD first (no body); when HEAD's answer is a failing status
 * (405 and 501 say "no HEAD here", and many servers answer HEAD wrongly with 403/404/500), one GET that
 * reads at most CHECK_GET_BYTES, whose answer is the verdict. Redirects are followed (the client's 5).
 * A failure of the request itself (DNS, TLS, timeout, refused address…) is not retried with GET.
 */
export async function checkDestination(outbound: OutboundFetch, url: string, timeoutMs?: number): Promise<CheckOutcome> {
  try {
    let answer = await outbound({ url, method: 'HEAD', timeoutMs })
    if (failingStatus(answer.status)) answer = await outbound({ url, method: 'GET', maxBytes: CHECK_GET_BYTES, timeoutMs })
    const failed = failingStatus(answer.status)
    return { ok: !failed, httpStatus: answer.status, error: failed ? 'http_status' : null }
  } catch (error) {
    if (error instanceof OutboundError) return { ok: false, httpStatus: null, error: error.kind }
    throw error
  }
}

export interface HealthState {
  readonly status: HealthStatus
  readonly failures: number
}

/** Failed checks in a row that make a link broken. */
export const FAILURES_TO_BREAK = 2

/**
 * The verdict after a check: ok after one success; broken after FAILURES_TO_BREAK failures in a row;
 * otherwise unchanged (a first failure leaves an ok link ok and an unknown one unknown).
 */
export function nextHealth(previous: HealthState, outcome: CheckOutcome): HealthState {
  if (outcome.ok) return { status: 'ok', failures: 0 }
  const failures = previous.failures + 1
  return { status: failures >= FAILURES_TO_BREAK ? 'broken' : previous.status, failures }
}
