import { randomUUID } from 'node:crypto'
import { Redis, type RedisOptions } from 'ioredis'
import type { BaseLogger } from 'pino'
import type { Faults } from '../ops/faults.js'
import type { Metrics } from '../ops/metrics.js'
import type { InvalidationBus, InvalidationHandlers } from './cache.js'
import { redisKeys } from './keys.js'

/** Reconnect forever, backing off to at most two seconds between attempts. */
const retryStrategy = (attempt: number) => Math.min(attempt * 100, 2000)

/**
 * Commands must fail fast while Redis is away (the rate limit then skips, a publish is retried
 * later) instead of queueing and holding requests: no offline queue, one retry, a short timeout.
 */
const COMMAND_OPTIONS: RedisOptions = { retryStrategy, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1000, lazyConnect: true }
const SUBSCRIBER_OPTIONS: RedisOptions = { retryStrategy, autoResubscribe: false, lazyConnect: true }

type Message = { from: string; type: 'link'; domain: string; path: string } | { from: string; type: 'domains' }

/**
 * The Redis connections of an instance: `client` for commands (rate-limit counters, publishing)
 * and a subscriber for the invalidation channel. Both reconnect by themselves; state changes are
 * logged once per transition and exported as `linkline_redis_up` / `linkline_redis_errors_total`.
 */
export function connectRedis(deps: { url: string; prefix: string; logger: Pick<BaseLogger, 'info' | 'warn'>; metrics: Metrics; faults: Faults }) {
  const { logger, metrics } = deps
  const channel = redisKeys(deps.prefix).invalidations
  const client = new Redis(deps.url, COMMAND_OPTIONS)
  const subscriber = new Redis(deps.url, SUBSCRIBER_OPTIONS)
  // Unknown until the first connection attempt ends, so that a Redis unreachable at start is logged too.
  const up = new Map<Redis, boolean | undefined>([
    [client, undefined],
    [subscriber, undefined],
  ])
  let closing = false
  const setUp = (connection: Redis, name: string, value: boolean) => {
    if (closing || up.get(connection) === value) return
    up.set(connection, value)
    if (value) logger.info({ connection: name }, 'redis connection ready')
    else logger.warn({ connection: name }, 'redis connection down; retrying (meanwhile redirects bypass the cache and rate limits are not enforced)')
    metrics.setRedisUp([...up.values()].every(Boolean))
  }
  for (const [connection, name] of [
    [client, 'commands'],
    [subscriber, 'subscriber'],
  ] as const) {
    connection.on('ready', () => setUp(connection, name, true))
    connection.on('close', () => setUp(connection, name, false))
    connection.on('error', () => metrics.countRedisError())
  }

  const instance = randomUUID()
  let handlers: InvalidationHandlers | undefined
  let listening = false
  // A publish that failed leaves other instances unaware of a write: once reconnected, this
  // instance asks every other to drop everything it holds.
  let owesReset = false

  const setListening = (value: boolean) => {
    if (listening === value) return
    listening = value
    handlers?.listening(value)
  }
  subscriber.on('close', () => setListening(false))
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(
      () => setListening(true),
      (error: unknown) => logger.warn({ err: error }, 'could not subscribe to the invalidation channel'),
    )
  })
  // A throw inside an ioredis listener would surface in its socket parser: contain it here.
  subscriber.on(
    'message',
    deps.faults.guard('redis', (_channel: string, raw: string) => {
      let message: Message
      try {
        message = JSON.parse(raw) as Message
      } catch {
        return
      }
      if (message.from === instance) return
      if (message.type === 'link') handlers?.link(message.domain, message.path)
      else handlers?.domainsChanged()
    }),
  )

  async function publish(message: Message): Promise<void> {
    try {
      await client.publish(channel, JSON.stringify(message))
    } catch (error) {
      metrics.countRedisError()
      // Once per outage, not once per write: the connection's own state change is logged already.
      if (!owesReset) logger.warn({ err: error }, 'could not publish an invalidation; other instances are told to reset once Redis is back')
      owesReset = true
    }
  }
  client.on('ready', () => {
    if (!owesReset) return
    owesReset = false
    void publish({ from: instance, type: 'domains' })
  })

  const bus: InvalidationBus = {
    publishLink: (domain, path) => publish({ from: instance, type: 'link', domain, path }),
    publishDomainsChanged: () => publish({ from: instance, type: 'domains' }),
    subscribe(next) {
      handlers = next
      next.listening(listening)
    },
    async close() {
      closing = true
      client.disconnect()
      subscriber.disconnect()
    },
  }
  /**
   * Opens both connections (constructing them does not: a CLI command that never starts the container
   * never reaches Redis). A first attempt that fails is retried like any lost connection.
   */
  const connect = async (): Promise<void> => {
    await Promise.allSettled([client, subscriber].map((connection) => connection.connect()))
  }
  return { client, bus, connect }
}
