import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, methodNotAllowed, notFound, serviceUnavailable } from '../shared/errors.js'
import { isDatabaseUnavailable } from '../storage/errors.js'
import { isOriginForm, requestPath } from './request-target.js'
import type { App } from './types.js'
import { toValidationError } from './validation.js'

const FRAMEWORK_ERRORS: Record<string, (e: FastifyError) => AppError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new AppError(415, 'unsupported_media_type', 'send the body as application/json or application/x-www-form-urlencoded'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError(413, 'payload_too_large', 'the body is larger than the limit'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new AppError(400, 'invalid_body', 'the Content-Length does not match the body'),
  FST_ERR_CTP_EMPTY_TYPE: () => new AppError(415, 'unsupported_media_type', 'the Content-Type header is empty'),
  // A malformed or absurdly long path segment cannot name any resource.
  FST_ERR_BAD_URL: () => notFound('resource'),
  FST_ERR_MAX_PARAM_LENGTH: () => notFound('resource'),
}

/** Maps anything thrown to the one error shape. 5xx messages never reach the client. */
export function toAppError(error: FastifyError | AppError | Error): AppError {
  if (error instanceof AppError) return error
  if (isDatabaseUnavailable(error)) return serviceUnavailable('the database is temporarily unavailable; retry shortly')
  const fastifyError = error as FastifyError
  if (fastifyError.validation) return toValidationError(fastifyError.validation, fastifyError.validationContext ?? 'request')
  const mapped = fastifyError.code ? FRAMEWORK_ERRORS[fastifyError.code] : undefined
  if (mapped) return mapped(fastifyError)
  const status = fastifyError.statusCode ?? 500
  if (status === 400) return new AppError(400, 'invalid_body', 'the request could not be parsed')
  // The static files of /docs: a path outside their folder (403 from @fastify/static) names no file.
  if (status === 403 || status === 404) return notFound('file')
  if (status === 416) return new AppError(416, 'validation_error', 'the Range header cannot be satisfied for this file', 'Range')
  if (status === 429) return new AppError(429, 'rate_limited', 'too many requests for this token; retry later')
  return new AppError(500, 'internal_error', 'an internal error occurred; it has been logged')
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.headers) reply.headers(error.headers)
  // `param` is always present: null when no single parameter is at fault (401, 404, 429, 500…).
  const body = { code: error.code, message: error.message, param: error.param ?? null }
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send({ success: false, error: body })
}

/**
 * Errors Node's HTTP parser raises before any request exists: a request line and headers over its
 * 16 KiB limit (a long query string), a malformed request, headers that never finish arriving. No
 * Fastify hook runs for them, so they are answered here in the one error shape, with a request id,
 * instead of Fastify's own `{error, message, statusCode}` body.
 */
/**
 * An HTTP/1.1 request without `Host` (RFC 9112 requires one): Node's own check would answer an empty
 * 400, so the server turns it off and answers here, in the error shape, before anything else runs.
 */
export function answerMissingHost(res: ServerResponse): void {
  const body = JSON.stringify({
    success: false,
    error: { code: 'validation_error', message: 'an HTTP/1.1 request must carry a Host header', param: 'Host' },
  })
  res.writeHead(400, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': randomUUID(),
    'X-Content-Type-Options': 'nosniff',
    Connection: 'close',
  })
  res.end(body)
}

export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'payload_too_large', 'the URL and headers are larger than the limit']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'the request did not arrive in time']
        : [400, 'invalid_body', 'the request could not be parsed']
  const body = JSON.stringify({ success: false, error: { code, message, param: null } })
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

/**
 * The error handler, and the not-found handler that tells an unknown path (404) from a known path
 * with the wrong method (405 with Allow). Route patterns are collected as routes are added.
 * Returns the hook that answers 404/405 in `onRequest` — after authentication, before any body is
 * read or parsed: a request no route takes never costs a parse.
 */
export function registerErrorHandling(app: App, onDatabaseUnavailable: (error: unknown) => void): (req: FastifyRequest) => Promise<void> {
  const patterns: { url: string; regex: RegExp; methods: Set<string> }[] = []
  app.addHook('onRoute', (route) => {
    let entry = patterns.find((p) => p.url === route.url)
    if (!entry) {
      const source = `^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}$`
      patterns.push((entry = { url: route.url, regex: new RegExp(source), methods: new Set() }))
    }
    for (const method of [route.method].flat()) entry.methods.add(method)
  })

  app.setErrorHandler(async (error: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error)
    if (appError.statusCode === 503) {
      // Not a bug (a database outage, a shutdown, /readyz): no stack. A database outage is logged once,
      // with its cause and its end (storage/health.ts); each request it fails, briefly.
      if (isDatabaseUnavailable(error)) onDatabaseUnavailable(error)
      req.log.warn({ code: (error as { code?: unknown }).code }, `answered 503: ${error.message}`)
    } else if (appError.statusCode >= 500) req.log.error({ err: error }, 'request failed')
    return sendError(reply, appError)
  })

  const routeError = (req: FastifyRequest): AppError => {
    const path = requestPath(req.url)
    const allowed = patterns.find((p) => p.regex.test(path))?.methods
    return allowed ? methodNotAllowed([...allowed].sort()) : notFound('route')
  }
  app.setNotFoundHandler(async (req, reply) => sendError(reply, routeError(req)))

  // An absolute-form target (`POST http://host/v1/links`) would be routed by its path but carries a
  // second authority beside Host; no client needs it to reach an origin server, so it is refused first.
  app.addHook('onRequest', async (req) => {
    if (!isOriginForm(req.url)) throw new AppError(400, 'validation_error', 'the request target must be a path such as /v1/links, not an absolute URL')
  })

  return async (req) => {
    if (req.is404) throw routeError(req)
  }
}
