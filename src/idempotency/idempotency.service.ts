import { createHash } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Clock } from '../shared/clock.js'
import { conflict, idempotencyKeyReused } from '../shared/errors.js'
import type { IdempotencyRepository } from './idempotency.repository.js'

const TTL_MS = 24 * 60 * 60 * 1000
/**
 * How long a claimed key waits for its response. A request cannot run longer than the server's
 * requestTimeout (30 s); a claim older than this belongs to a request that died (a crash, a killed
 * instance), and the next retry takes the key over instead of waiting 24 h for it.
 */
const LEASE_MS = 60_000
const WAIT_STEP_MS = 50
const WAIT_MAX_MS = 10_000

/** Stable JSON: the same fields in another order are the same request. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** What to do with a request that carries a key: go on (the key is now this request's), or answer the stored response. */
export type IdempotencyOutcome = { kind: 'claimed' } | { kind: 'replay'; statusCode: number; body: string | null }

/**
 * `Idempotency-Key` (the HTTP hook is in http/idempotency.ts): the first request claims the key (a
 * record with no response yet), its response is stored before it is sent, and a retry with the same
 * request within 24 h replays it. A concurrent duplicate waits for the first (a claim older than
 * LEASE_MS is taken over); another request with the same key is 409. Records live in the database:
 * shared by every instance.
 */
export function createIdempotencyService(deps: { repo: IdempotencyRepository; clock: Clock }) {
  const { repo, clock } = deps

  async function claim(ownerId: string, key: string, hash: string): Promise<boolean> {
    const now = clock.now()
    await repo.dropStale(ownerId, key, now - TTL_MS, now - LEASE_MS)
    return repo.claim(ownerId, key, hash, clock.now())
  }

  return {
    /** Claims `key` for the request (method, url, body), waits for a concurrent one, or returns the response to replay. */
    async begin(ownerId: string, key: string, request: { method: string; url: string; body: unknown }): Promise<IdempotencyOutcome> {
      const hash = createHash('sha256')
        .update(`${request.method} ${request.url}\n${canonical(request.body)}`)
        .digest('hex')
      if (await claim(ownerId, key, hash)) return { kind: 'claimed' }
      for (let waited = 0; waited <= WAIT_MAX_MS; waited += WAIT_STEP_MS) {
        const row = await repo.find(ownerId, key)
        if (!row || (row.status_code === null && row.created_at < clock.now() - LEASE_MS)) {
          // The first request failed (5xx, 400) and released the key, or died holding it: this one takes over.
          if (await claim(ownerId, key, hash)) return { kind: 'claimed' }
          continue
        }
        if (row.request_hash !== hash) throw idempotencyKeyReused()
        if (row.status_code !== null) return { kind: 'replay', statusCode: row.status_code, body: row.response_body }
        await sleep(WAIT_STEP_MS)
      }
      throw conflict('a request with this Idempotency-Key is still being processed; retry later', 'Idempotency-Key')
    },

    /**
     * Records the claimed request's response. Only a request that was acted upon is replayed: a 400
     * changed nothing (the corrected retry must not get 409), and a 5xx may be retried: both release the key.
     */
    async finish(ownerId: string, key: string, statusCode: number, body: string | null): Promise<void> {
      if (statusCode >= 500 || statusCode === 400) await repo.release(ownerId, key)
      else await repo.storeResponse(ownerId, key, statusCode, body)
    },

    /** Drops records older than 24 h; run periodically. */
    prune: (): Promise<void> => repo.deleteOlderThan(clock.now() - TTL_MS),
  }
}
export type IdempotencyService = ReturnType<typeof createIdempotencyService>
