import { createHash } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Clock } from '../shared/clock.js'
import { conflict, idempotencyKeyReused, validationError } from '../shared/errors.js'
import type { Db } from '../storage/database.js'
import { isUniqueViolation } from '../storage/errors.js'
import type { App } from './types.js'

const TTL_MS = 24 * 60 * 60 * 1000
/**
 * How long a claimed key waits for its response. A request cannot run longer than the server's
 * requestTimeout (30 s); a claim older than this belongs to a request that died (a crash, a killed
 * instance), and the next retry takes the key over instead of waiting 24 h for it.
 */
const LEASE_MS = 60_000
const WAIT_STEP_MS = 50
const WAIT_MAX_MS = 10_000

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: string
  }
}

/** Stable JSON: the same fields in another order are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/**
 * `Idempotency-Key` on POST: the first request claims the key (a row with no response yet), the
 * response is stored before it is sent, and a retry with the same body within 24 h replays it. A
 * concurrent duplicate waits for the first (a claim older than LEASE_MS is taken over); another body with
 * the same key is 409. 400 and 5xx responses are not kept, so that the client can correct or retry.
 * Records live in the database: shared by every instance.
 */
export function registerIdempotency(app: App, deps: { db: Db; clock: Clock }): void {
  const { db, clock } = deps

  async function claim(ownerId: string, key: string, hash: string): Promise<boolean> {
    const now = clock.now()
    await db.deleteFrom('idempotency_keys').where('owner_id', '=', ownerId).where('key', '=', key)
      .where((eb) => eb.or([
        eb('created_at', '<', now - TTL_MS),
        eb.and([eb('status_code', 'is', null), eb('created_at', '<', now - LEASE_MS)]),
      ]))
      .execute()
    try {
      await db.insertInto('idempotency_keys')
        .values({ owner_id: ownerId, key, request_hash: hash, status_code: null, response_body: null, created_at: clock.now() })
        .execute()
      return true
    } catch (error) {
      if (isUniqueViolation(error)) return false
      throw error
    }
  }

  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    const header = req.headers['idempotency-key']
    if (req.method !== 'POST' || header === undefined || !req.principal) return
    if (typeof header !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(header)) {
      throw validationError('Idempotency-Key', 'Idempotency-Key must be 1-255 visible ASCII characters')
    }
    const ownerId = req.principal.ownerId
    const hash = createHash('sha256').update(`${req.method} ${req.url}\n${canonical(req.body)}`).digest('hex')
    if (await claim(ownerId, header, hash)) {
      req.idempotencyKey = header
      return
    }
    for (let waited = 0; waited <= WAIT_MAX_MS; waited += WAIT_STEP_MS) {
      const row = await db.selectFrom('idempotency_keys').selectAll().where('owner_id', '=', ownerId).where('key', '=', header).executeTakeFirst()
      if (!row || (row.status_code === null && row.created_at < clock.now() - LEASE_MS)) {
        // The first request failed (5xx, 400) and released the key, or died holding it: this one takes over.
        if (await claim(ownerId, header, hash)) {
          req.idempotencyKey = header
          return
        }
        continue
      }
      if (row.request_hash !== hash) throw idempotencyKeyReused()
      if (row.status_code !== null) {
        return reply
          .code(row.status_code)
          .header('Idempotent-Replayed', 'true')
          .type('application/json; charset=utf-8')
          .send(row.response_body)
      }
      await sleep(WAIT_STEP_MS)
    }
    throw conflict('a request with this Idempotency-Key is still being processed; retry later', 'Idempotency-Key')
  })

  app.addHook('onSend', async (req, reply, payload) => {
    const key = req.idempotencyKey
    if (key === undefined) return payload
    const ownerId = req.principal.ownerId
    // Only a request that was acted upon is replayed. A 400 changed nothing (the corrected retry must
    // not get 409), and a 5xx may be retried: both release the key.
    if (reply.statusCode >= 500 || reply.statusCode === 400) {
      await db.deleteFrom('idempotency_keys').where('owner_id', '=', ownerId).where('key', '=', key).execute()
    } else {
      const body = typeof payload === 'string' ? payload : null
      await db.updateTable('idempotency_keys').set({ status_code: reply.statusCode, response_body: body })
        .where('owner_id', '=', ownerId).where('key', '=', key).execute()
    }
    return payload
  })
}

/** Drops records older than 24 h; run periodically. */
export async function pruneIdempotencyKeys(db: Db, now: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', now - TTL_MS).execute()
}
