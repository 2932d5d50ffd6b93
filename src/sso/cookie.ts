import type { FastifyReply, FastifyRequest } from 'fastify'
import { cookieValue, setCookie } from '../http/cookies.js'
import { PENDING_TTL_MS } from './pending.js'

/** The cookie that carries a pending single sign-on from the start to the callback, sealed (pending.ts). */
export const PENDING_COOKIE = 'linkline_oidc'

/** The pending cookie's value, if the request carries one. */
export const pendingCookie = (req: FastifyRequest): string | undefined => cookieValue(req, PENDING_COOKIE)

/**
 * Sent only to the two routes of single sign-on, for as long as the seal holds; `HttpOnly` and
 * `Secure` over HTTPS (http/cookies.ts). `SameSite=Lax`, not Strict: the browser comes back from the
 * provider's site, and a Strict cookie would not come with it. `null` clears it.
 */
export function setPendingCookie(req: FastifyRequest, reply: FastifyReply, value: string | null): void {
  setCookie(req, reply, { name: PENDING_COOKIE, value, path: '/v1/auth/oidc', sameSite: 'Lax', maxAgeSeconds: PENDING_TTL_MS / 1000 })
}
