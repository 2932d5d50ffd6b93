import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import { requestIdOf } from '../http/request-id.js'
import type { FaultSite, Metrics } from './metrics.js'

const ERROR_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Something went wrong</title></head>' +
  '<body style="font-family:system-ui,sans-serif;text-align:center;padding:4rem">' +
  '<h1>Something went wrong</h1><p>This request failed; it has been logged. Please try again.</p></body></html>'
const ERROR_BODY = JSON.stringify({
  success: false,
  error: { code: 'internal_error', message: 'an internal error occurred; it has been logged', param: null },
})

/**
 * The fault boundary of everything that runs outside Fastify's error handler (the redirect, the
 * server's request callback, Redis and timer callbacks, the process itself): an exception is logged
 * with what identifies it, counted in `linkline_faults_total`, and fails only the request or the
 * callback it happened in. The process keeps serving everyone else.
 */
export function createFaults(deps: { logger: FastifyBaseLogger; metrics: Metrics }) {
  const { logger, metrics } = deps

  function report(site: FaultSite, error: unknown, context: Record<string, unknown> = {}): void {
    metrics.countFault(site)
    logger.error({ err: error, site, ...context }, 'fault contained; the process keeps serving')
  }

  return {
    report,

    /** Answers a request whose handling threw: 500 in the API's error shape on `/v1`, a small page elsewhere. */
    failRequest(site: FaultSite, req: IncomingMessage, res: ServerResponse, error: unknown): void {
      // The redirect writes its id with its headers, all at once: a request that failed before has none yet.
      const requestId = res.getHeader('X-Request-Id') ?? requestIdOf(req)
      report(site, error, { reqId: requestId, method: req.method, url: req.url })
      if (res.writableEnded) return
      if (res.headersSent) {
        res.destroy()
        return
      }
      const api = req.url === '/v1' || req.url?.startsWith('/v1/') === true
      const body = api ? ERROR_BODY : ERROR_PAGE
      try {
        res.writeHead(500, {
          'Content-Type': api ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8',
          'Cache-Control': 'no-store',
          'Content-Length': Buffer.byteLength(body),
          'X-Content-Type-Options': 'nosniff',
          'X-Request-Id': requestId,
        })
        res.end(req.method === 'HEAD' ? undefined : body)
      } catch (secondary) {
        report(site, secondary, { reqId: requestId })
        res.destroy()
      }
    },

    /** A callback (timer, event listener) whose exception is reported instead of thrown. */
    guard<A extends unknown[]>(site: FaultSite, callback: (...args: A) => void): (...args: A) => void {
      return (...args) => {
        try {
          callback(...args)
        } catch (error) {
          report(site, error)
        }
      }
    },
  }
}
export type Faults = ReturnType<typeof createFaults>
