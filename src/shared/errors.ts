/**
 * Domain errors. Services throw these; the one error handler (http/errors.ts) renders them in the
 * error shape of docs/api/README.md#errors. Each feature builds its errors through the named constructors below so
 * that codes and messages stay consistent.
 */
export type ErrorCode =
  | 'validation_error'
  | 'invalid_body'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'idempotency_key_reused'
  | 'gone'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'request_timeout'
  | 'service_unavailable'
  | 'internal_error'

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message)
    this.name = 'AppError'
  }
}

export const validationError = (param: string, message: string) => new AppError(400, 'validation_error', message, param)
export const invalidBody = (message: string) => new AppError(400, 'invalid_body', message)
export const unauthorized = (message = 'a valid bearer token is required') =>
  new AppError(401, 'unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer' })
export const forbidden = (scope: string) => new AppError(403, 'forbidden', `this token lacks the ${scope} scope`)
export const notFound = (what: string, param?: string) => new AppError(404, 'not_found', `no such ${what}`, param)
export const methodNotAllowed = (allow: string[]) =>
  new AppError(405, 'method_not_allowed', 'method not allowed on this path', undefined, {
    Allow: allow.join(', '),
  })
export const conflict = (message: string, param?: string) => new AppError(409, 'conflict', message, param)
export const idempotencyKeyReused = () =>
  new AppError(409, 'idempotency_key_reused', 'this Idempotency-Key was already used with a different request', 'Idempotency-Key')
/** A one-time secret (invitation, password reset, setup) already used, revoked or expired. */
export const gone = (what: string, param: string) => new AppError(410, 'gone', `this ${what} was already used, revoked or has expired`, param)
export const serviceUnavailable = (message: string) => new AppError(503, 'service_unavailable', message, undefined, { 'Retry-After': '1' })
