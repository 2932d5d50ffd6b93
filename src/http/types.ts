import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify'
import type { Principal, Scope } from '../tokens/tokens.service.js'

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a token needs for this route; checked right after authentication. */
    scope?: Scope
    /**
     * A route open to anyone whose every answer, not only its errors, counts against the caller's
     * anonymous budget (anonymous-limit.ts): it does real work for whoever asks.
     */
    anonymousBudget?: boolean
  }
  interface FastifyRequest {
    /**
     * The caller, set by the auth hook on every `/v1` request that needs a token; `null` before it and
     * on public routes. Routes behind the hook read it with `principalOf(req)`.
     */
    principal: Principal | null
  }
}
