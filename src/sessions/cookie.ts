import type { FastifyReply, FastifyRequest } from 'fastify'
import { SESSION_IDLE_MS } from './sessions.service.js'

export const SESSION_COOKIE = 'linkline_session'
const VALUE = /^[A-Za-z0-9_-]{16,128}$/

/** The session cookie's value, if the request carries a well-formed one. */
export function sessionCookie(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim()
      return VALUE.test(value) ? value : undefined
    }
  }
  return undefined
}

/**
 * `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's page sends it), `Path=/`, and
 * `Secure` when the request came over HTTPS (directly or through a trusted proxy). It lives as long as
 * the session may stay unused, and is sent again whenever the session's last use moves.
 */
export function setSessionCookie(req: FastifyRequest, reply: FastifyReply, value: string | null): void {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${value === null ? 0 : SESSION_IDLE_MS / 1000}`]
  if (req.protocol === 'https') attributes.push('Secure')
  reply.header('Set-Cookie', `${SESSION_COOKIE}=${value ?? ''}; ${attributes.join('; ')}`)
}
