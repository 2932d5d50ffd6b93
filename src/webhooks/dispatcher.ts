import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../shared/clock.js'
import type { OutboundFetch } from '../outbound/outbound.js'
import { DELIVERY_TIMEOUT_MS, postOnce, type AttemptResult } from './delivery.js'
import type { SecretBox } from './signing.js'
import { sign } from './signing.js'
import { bodyOf } from './events.js'
import type { ClaimedDelivery, WebhooksRepository } from './webhooks.repository.js'

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
/**
 * The pause after each failed attempt (Standard Webhooks' schedule): 8 attempts, the first retry
 * within 10 s, the last about 27.5 h after the first.
 */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1
/**
 * A claimed attempt is leased this long by default (LINKLINE_WEBHOOKS_LEASE_MS): well past the 10 s
 * timeout, so a live attempt is never taken twice.
 */
export const LEASE_MS = 2 * MINUTE
/** Per endpoint and per instance, at most this many requests in flight: a flood of events waits in the outbox. */
export const PER_ENDPOINT_IN_FLIGHT = 8
/** Per instance, at most this many requests in flight, and endpoints served per claim. */
const TOTAL_IN_FLIGHT = 64
const ENDPOINTS_PER_CLAIM = 32
/**
 * After an event is recorded, the dispatcher of this process looks again this soon (after the commit);
 * and after an attempt ends, so that attempts ending together share one claim.
 */
const KICK_DELAY_MS = 20

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'refused'

/**
 * The delivery worker of one server process: claims due deliveries from the outbox, signs and POSTs
 * them, and records each outcome (retry with growing delays; after MAX_ATTEMPTS the delivery fails
 * and an endpoint that answered nothing since is disabled). Timers are unref'd; `stop` waits for the
 * attempts in flight. Time comes from the container's Clock, so that tests move retries along.
 */
export function createDispatcher(deps: {
  repo: WebhooksRepository
  box: SecretBox
  clock: Clock
  logger: FastifyBaseLogger
  /** The guarded outbound client (outbound/outbound.ts). */
  outbound: OutboundFetch
  pollIntervalMs: number
  /** How long a claimed attempt is leased (LEASE_MS by default): an attempt a crash cut off is due again after it. */
  leaseMs?: number
  onOutcome?: (outcome: DeliveryOutcome) => void
}) {
  const { repo, clock, logger } = deps
  const inFlight = new Map<string, number>()
  const attempts = new Set<Promise<void>>()
  let total = 0
  let timer: NodeJS.Timeout | undefined
  let timerAt = Infinity
  let claiming = false
  let again = false
  let stopped = true

  /** Runs a round in `ms`, unless one is due sooner already. */
  function schedule(ms: number) {
    if (stopped || Date.now() + ms >= timerAt) return
    clearTimeout(timer)
    timerAt = Date.now() + ms
    timer = setTimeout(() => {
      timerAt = Infinity
      void round()
    }, ms).unref()
  }

  async function round(): Promise<void> {
    if (stopped) return
    if (claiming) {
      again = true
      return
    }
    clearTimeout(timer)
    timerAt = Infinity
    claiming = true
    again = false
    let claimed: ClaimedDelivery[] = []
    try {
      let budget = TOTAL_IN_FLIGHT - total
      if (budget > 0) {
        claimed = await repo.claim(clock.now(), deps.leaseMs ?? LEASE_MS, ENDPOINTS_PER_CLAIM, (id) => {
          const room = Math.max(0, Math.min(PER_ENDPOINT_IN_FLIGHT - (inFlight.get(id) ?? 0), budget))
          budget -= room
          return room
        })
      }
    } catch (error) {
      logger.warn({ err: error }, 'claiming webhook deliveries failed; retried next period')
    } finally {
      claiming = false
    }
    for (const delivery of claimed) start(delivery)
    // More may be due right away (a full claim, or a kick during this one); else wait for the period.
    schedule(again || (claimed.length > 0 && total < TOTAL_IN_FLIGHT) ? 0 : deps.pollIntervalMs)
  }

  function start(delivery: ClaimedDelivery) {
    inFlight.set(delivery.webhook_id, (inFlight.get(delivery.webhook_id) ?? 0) + 1)
    total++
    const attempt = deliver(delivery)
      .catch((error: unknown) => logger.error({ err: error, delivery: delivery.id }, 'recording a webhook attempt failed; retried when its lease ends'))
      .finally(() => {
        attempts.delete(attempt)
        total--
        const left = (inFlight.get(delivery.webhook_id) ?? 1) - 1
        if (left === 0) inFlight.delete(delivery.webhook_id)
        else inFlight.set(delivery.webhook_id, left)
        // Room for this endpoint again: look for more soon (completions close together share one claim).
        schedule(KICK_DELAY_MS)
      })
    attempts.add(attempt)
  }

  async function deliver(d: ClaimedDelivery): Promise<void> {
    let result: AttemptResult
    try {
      const timestamp = Math.floor(clock.now() / 1000)
      const body = bodyOf(d)
      const headers = {
        'webhook-id': d.event_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': sign(deps.box.open(d.secret), d.event_id, timestamp, body),
      }
      result = await postOnce(deps.outbound, d.url, headers, body, { timeoutMs: DELIVERY_TIMEOUT_MS })
    } catch (error) {
      result = { error: error instanceof Error ? error.message : String(error) }
    }
    const now = clock.now()
    const answered = { last_status_code: result.statusCode ?? null, response_excerpt: result.excerpt ?? null }
    if (result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300) {
      await repo.settleDelivered(d.id, d.webhook_id, { ...answered, status: 'delivered', next_attempt_at: null, delivered_at: now, last_error: null }, now)
      deps.onOutcome?.('delivered')
      return
    }
    const why =
      result.error ??
      `answered ${result.statusCode}${result.statusCode !== undefined && result.statusCode >= 300 && result.statusCode < 400 ? ' (redirects are not followed)' : ''}`
    if (d.attempts < MAX_ATTEMPTS) {
      await repo.settle(d.id, { ...answered, last_error: why, next_attempt_at: now + (RETRY_DELAYS_MS[d.attempts - 1] as number) })
      deps.onOutcome?.(result.failure === 'private_address' ? 'refused' : 'retry')
      return
    }
    const reason = `no delivery succeeded since ${new Date(d.created_at).toISOString()}: ${MAX_ATTEMPTS} attempts of ${d.event_id} failed, the last one: ${why}`
    const disabled = await repo.disableIfFailingSince(d.webhook_id, d.created_at, reason, now)
    await repo.settle(d.id, {
      ...answered,
      status: 'failed',
      next_attempt_at: null,
      last_error: disabled ? `${why}; gave up after ${MAX_ATTEMPTS} attempts and disabled the endpoint` : `${why}; gave up after ${MAX_ATTEMPTS} attempts`,
    })
    if (disabled) logger.warn({ webhook: d.webhook_id }, `webhook endpoint disabled: ${reason}`)
    deps.onOutcome?.('failed')
  }

  return {
    start() {
      stopped = false
      schedule(0)
    },
    /** Looks for due deliveries soon: called after an event was recorded in this process. */
    kick() {
      if (claiming) again = true
      else schedule(KICK_DELAY_MS)
    },
    /** Stops claiming and waits for the attempts in flight (each ends within the delivery timeout). */
    async stop(): Promise<void> {
      stopped = true
      clearTimeout(timer)
      timerAt = Infinity
      await Promise.allSettled([...attempts])
    },
  }
}
export type Dispatcher = ReturnType<typeof createDispatcher>
