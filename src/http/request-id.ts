import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** What a client may send as X-Request-Id to have it echoed: short, and safe in a header and a log line. */
const REQUEST_ID = /^[\w.:-]{1,128}$/

/** The request's id: the client's X-Request-Id when it is safe, a new UUID otherwise (API and redirect alike). */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id']
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID()
}
