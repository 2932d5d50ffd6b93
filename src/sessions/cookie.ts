import type { FastifyReply, FastifyRequest } from 'fastify'
import { cookieValue, setCookie } from '../http/cookies.js'
import { SESSION_IDLE_MS } from './sessions.service.js'

export const SESSION_COOKIE = 'linkline_session'
const VALUE = /^[A-Za-z0-9_-]{16,128}$/

/** The session cookie's value, if the request carries a well-formed one. */
export function sessionCookie(req: FastifyRequest): string | undefined {
  const value = cookieValue(req, SESSION_COOKIE)
  return value !== undefined && VALUE.test(value) ? value : undefined
}

/**
 * `SameSite=Strict` (no other site's page sends it), `Path=/`, `HttpOnly` and `Secure` over HTTPS
 * (http/cookies.ts). It lives as long as the session may stay unused, and is sent again whenever the
 * session's last use moves.
 */
export function setSessionCookie(req: FastifyRequest, reply: FastifyReply, value: string | null): void {
  setCookie(req, reply, { name: SESSION_COOKIE, value, path: '/', sameSite: 'Strict', maxAgeSeconds: SESSION_IDLE_MS / 1000 })
}
