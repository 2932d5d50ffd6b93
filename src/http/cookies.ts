import type { FastifyReply, FastifyRequest } from 'fastify'

/** The value of the cookie `name` the request carries, if any (the first one when repeated). */
export function cookieValue(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/**
 * Sets (or, with `null`, clears) a cookie no script reads: `HttpOnly`, and `Secure` when the request
 * came over HTTPS (directly or through a trusted proxy).
 */
export function setCookie(
  req: FastifyRequest,
  reply: FastifyReply,
  cookie: { name: string; value: string | null; path: string; sameSite: 'Strict' | 'Lax'; maxAgeSeconds: number },
): void {
  const { name, value, path, sameSite, maxAgeSeconds } = cookie
  const attributes = [`Path=${path}`, 'HttpOnly', `SameSite=${sameSite}`, `Max-Age=${value === null ? 0 : maxAgeSeconds}`]
  if (req.protocol === 'https') attributes.push('Secure')
  reply.header('Set-Cookie', `${name}=${value ?? ''}; ${attributes.join('; ')}`)
}
