import type { FastifyReply, FastifyRequest } from 'fastify'
import { PENDING_TTL_MS } from './pending.js'

/** The cookie that carries a pending single sign-on from the start to the callback, sealed (pending.ts). */
export const PENDING_COOKIE = 'linkline_oidc'
const PATH = '/v1/auth/oidc'

/** The pending cookie's value, if the request carries one. */
export function pendingCookie(req: FastifyRequest): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === PENDING_COOKIE) return part.slice(eq + 1).trim()
  }
  return undefined
}

/**
 * `HttpOnly`, sent only to the two routes of single sign-on, `Secure` over HTTPS, for as long as the
 * seal holds. `SameSite=Lax`, not Strict: the browser comes back from the provider's site, and a
 * Strict cookie would not come with it. `null` clears it.
 */
export function setPendingCookie(req: FastifyRequest, reply: FastifyReply, value: string | null): void {
  const attributes = [`Path=${PATH}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${value === null ? 0 : PENDING_TTL_MS / 1000}`]
  if (req.protocol === 'https') attributes.push('Secure')
  reply.header('Set-Cookie', `${PENDING_COOKIE}=${value ?? ''}; ${attributes.join('; ')}`)
}
