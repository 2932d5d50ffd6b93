import type { FastifyReply, FastifyRequest } from 'fastify'
import type { IdempotencyService } from '../idempotency/idempotency.service.js'
import { validationError } from '../shared/errors.js'
import type { App } from './types.js'
import { principalOf } from './auth.js'

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: string
  }
}

/**
 * The HTTP side of `Idempotency-Key` on POST (the rules are in idempotency/idempotency.service.ts):
 * preHandler claims the key or replays the stored response, onSend stores the response before it leaves.
 */
export function registerIdempotency(app: App, idempotency: IdempotencyService): void {
  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    const header = req.headers['idempotency-key']
    if (req.method !== 'POST' || header === undefined || !req.principal) return
    if (typeof header !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(header)) {
      throw validationError('Idempotency-Key', 'Idempotency-Key must be 1-255 visible ASCII characters')
    }
    const outcome = await idempotency.begin(req.principal.ownerId, header, { method: req.method, url: req.url, body: req.body })
    if (outcome.kind === 'claimed') {
      req.idempotencyKey = header
      return
    }
    return reply.code(outcome.statusCode).header('Idempotent-Replayed', 'true').type('application/json; charset=utf-8').send(outcome.body)
  })

  app.addHook('onSend', async (req, reply, payload) => {
    const key = req.idempotencyKey
    if (key === undefined) return payload
    await idempotency.finish(principalOf(req).ownerId, key, reply.statusCode, typeof payload === 'string' ? payload : null)
    return payload
  })
}
