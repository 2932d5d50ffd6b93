import type { FastifyBaseLogger } from 'fastify'
import { pino } from 'pino'
import type { Config } from '../config.js'
import { requestLogSerializer } from '../http/client-address.js'

/**
 * The one logger: Fastify's requests and the container's background work (Redis, reloads) share it.
 * Request logs carry client addresses cut to /24 or /48, in full only when debugging. On a terminal,
 * lines for people (pino-pretty); anywhere else, JSON lines for a log pipeline.
 */
export function createLogger(config: Pick<Config, 'logLevel'>): FastifyBaseLogger {
  const fullAddresses = config.logLevel === 'debug' || config.logLevel === 'trace'
  return pino({
    level: config.logLevel,
    serializers: { req: requestLogSerializer(fullAddresses) },
    ...(process.stdout.isTTY ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } } : {}),
  })
}
