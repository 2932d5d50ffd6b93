import type { FastifyRequest } from 'fastify'
import { clientBlock } from '../http/client-address.js'
import type { App } from '../http/types.js'
import { AppError } from '../shared/errors.js'
import { hashToken } from '../tokens/tokens.service.js'
import { emailKey } from '../accounts/accounts.service.js'

/** The window of both sign-in limits. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000
/** Wrong credentials per client address (IPv6: per /64), and per email, in the window; then every sign-in from it (or as it) is refused. */
export const SIGN_IN_FAILURES = 10
/** Sessions opened with one token in the window: far above a person's use, far below a flood. */
export const SIGN_INS_PER_TOKEN = 30

type Limit = ReturnType<App['createRateLimit']>

const requestEmailKey = (req: FastifyRequest) => {
  const email = (req.body as { email?: unknown } | undefined)?.email
  return typeof email === 'string' ? emailKey(email) : ''
}

/**
 * The limits of `POST /v1/sessions`, on the API's rate-limit store: with Redis they hold across
 * instances (and are let through while Redis is away, like the per-token limit); without, per instance.
 * Failures are counted per address only once they happen, so guessing costs the guesser; successes
 * per token, so a valid token cannot mint sessions without bound.
 */
export function createSignInLimits(app: App) {
  const limit = (max: number, key: (req: FastifyRequest) => string): Limit =>
    // The API's limit lets every request without a principal through (allowList); these count exactly those.
    app.createRateLimit({ max, timeWindow: SIGN_IN_WINDOW_MS, allowList: () => false, keyGenerator: key })
  const failures = limit(SIGN_IN_FAILURES, (req) => `sign-in-failures:${clientBlock(req.ip)}`)
  // Keyed by a hash of the email as compared: the store never holds an address.
  const emailFailures = limit(SIGN_IN_FAILURES, (req) => `sign-in-failures:email:${hashToken(requestEmailKey(req))}`)
  const successes = limit(SIGN_INS_PER_TOKEN, (req) => `sign-ins:${hashToken((req.body as { token: string }).token)}`)

  const refuse = (ttlInSeconds: number, what: string) => {
    const retry = String(Math.max(1, ttlInSeconds))
    return new AppError(429, 'rate_limited', `${what}; retry in ${retry} s`, undefined, { 'Retry-After': retry })
  }

  return {
    /** 429 once this address (or, signing in with an email, that email) has failed SIGN_IN_FAILURES times in the window. */
    async check(req: FastifyRequest): Promise<void> {
      const state = await failures(req, { increment: false })
      if (!state.isAllowed && state.remaining === 0) {
        throw refuse(state.ttlInSeconds, `over ${SIGN_IN_FAILURES} failed sign-ins in 15 minutes from this address`)
      }
      if (requestEmailKey(req) === '') return
      const byEmail = await emailFailures(req, { increment: false })
      if (!byEmail.isAllowed && byEmail.remaining === 0) {
        throw refuse(byEmail.ttlInSeconds, `over ${SIGN_IN_FAILURES} failed sign-ins in 15 minutes for this email`)
      }
    },
    /** Counts wrong credentials against the address, and against the email when one was given. */
    async failed(req: FastifyRequest): Promise<void> {
      await failures(req)
      if (requestEmailKey(req) !== '') await emailFailures(req)
    },
    /** Counts a session about to be opened with the request's token: 429 beyond SIGN_INS_PER_TOKEN. */
    async admit(req: FastifyRequest): Promise<void> {
      const state = await successes(req)
      if (!state.isAllowed && state.isExceeded) throw refuse(state.ttlInSeconds, `over ${SIGN_INS_PER_TOKEN} sign-ins in 15 minutes with this token`)
    },
  }
}
export type SignInLimits = ReturnType<typeof createSignInLimits>
