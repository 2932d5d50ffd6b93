import type { LogLevel } from 'fastify'
import { Type } from 'typebox'
import type { App } from '../http/types.js'
import { serviceUnavailable } from '../shared/errors.js'
import type { Storage } from '../storage/database.js'
import type { DatabaseHealth } from '../storage/health.js'
import type { Metrics } from './metrics.js'

const tags = ['operations']
// No token: probes and scrapers call these without one.
const security: [] = []
// Probes and scrapes come every few seconds: logging each at info would drown the log. Their failures
// still show, unless the operator chose a quieter level (error, fatal, silent), which stays.
const QUIETER_THAN_WARN = new Set(['error', 'fatal', 'silent'])
const Status = Type.Object({ status: Type.String({ examples: ['ok'] }) })

export function opsRoutes(app: App, { storage, health, metrics }: { storage: Storage; health: DatabaseHealth; metrics: Metrics }): void {
  const PROBE_LOG_LEVEL = (QUIETER_THAN_WARN.has(app.log.level) ? app.log.level : 'warn') as LogLevel
  app.get(
    '/healthz',
    {
      logLevel: PROBE_LOG_LEVEL,
      schema: {
        tags,
        security,
        summary: 'The process is up',
        description: "Answers 200 while the process runs, whatever the database's state: a liveness probe. No token needed; never logged below warn.",
        response: { 200: Status },
      },
    },
    async () => ({
      status: 'ok',
    }),
  )

  app.get(
    '/readyz',
    {
      logLevel: PROBE_LOG_LEVEL,
      schema: {
        tags,
        security,
        summary: 'The database answers',
        description:
          'Answers 200 while the database answers and takes writes, 503 while it does not (unreachable, a full disk): a readiness probe for a load balancer. No token needed.',
        response: { 200: Status },
      },
    },
    async () => {
      if (!(await storage.ping())) throw serviceUnavailable('the database is not reachable')
      // Reads work, writes fail (a full disk, a file the server cannot write): not ready either.
      if (health.writesFailing) throw serviceUnavailable('the database cannot be written')
      return { status: 'ready' }
    },
  )

  app.get(
    '/metrics',
    {
      logLevel: PROBE_LOG_LEVEL,
      schema: {
        tags,
        security,
        summary: 'Prometheus metrics',
        description:
          "The process's metrics in the Prometheus text format: requests by route and status, redirects and their latency, visits recorded, dropped and waiting, webhook outcomes and backlog, Redis state. No token needed; restrict it at the proxy if it must stay private.",
      },
    },
    async (_req, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  )
}
