import { accountsRoutes } from './accounts/accounts.routes.js'
import { MemberObject, MeObject, UserObject } from './accounts/accounts.schemas.js'
import { registerAuditTrail } from './audit/audit.recording.js'
import { auditRoutes } from './audit/audit.routes.js'
import { AuditEntryObject } from './audit/audit.schemas.js'
import { createSignIn } from './sessions/sign-in.js'
import { invitationsRoutes } from './invitations/invitations.routes.js'
import { InvitationObject } from './invitations/invitations.schemas.js'
import { passwordsRoutes } from './invitations/passwords.routes.js'
import { createServer, ServerResponse, type OutgoingHttpHeader, type OutgoingHttpHeaders, type Server as HttpServer } from 'node:http'
import { Server as NetServer } from 'node:net'
import rateLimit from '@fastify/rate-limit'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import { redisKeys } from './cache/keys.js'
import type { Container } from './container.js'
import { conversationsRoutes } from './conversations/conversations.routes.js'
import { ConversationObject, MessageObject } from './conversations/conversations.schemas.js'
import { domainsRoutes } from './domains/domains.routes.js'
import { DomainObject } from './domains/domains.schemas.js'
import { registerAnonymousLimit } from './http/anonymous-limit.js'
import { registerAuth } from './http/auth.js'
import { compileTrust } from './http/client-address.js'
import { answerClientError, answerMissingHost, registerErrorHandling, sendError, toAppError } from './http/errors.js'
import { registerIdempotency } from './http/idempotency.js'
import { lazyCompilers } from './http/lazy-compilers.js'
import { registerOpenApi } from './http/openapi.js'
import { requestIdOf } from './http/request-id.js'
import { parseParams, registerBodyParsers } from './http/parsing.js'
import type { App } from './http/types.js'
import { coerceRequest } from './http/validation.js'
import { linksRoutes } from './links/links.routes.js'
import { healthRoutes } from './health/health.routes.js'
import { LinkObject } from './links/links.schemas.js'
import { createRedirectHandler } from './links/redirect.handler.js'
import { opsRoutes } from './ops/ops.routes.js'
import { portingRoutes } from './porting/porting.routes.js'
import { qrRoutes } from './qr/qr.routes.js'
import { qrLogoRoutes } from './qr/qr-logo.routes.js'
import { AppError, serviceUnavailable } from './shared/errors.js'
import { sessionsRoutes } from './sessions/sessions.routes.js'
import { SessionObject } from './sessions/sessions.schemas.js'
import { ssoRoutes } from './sso/sso.routes.js'
import { statsRoutes } from './stats/stats.routes.js'
import { publicStatsRoutes } from './stats/public-stats.routes.js'
import { missingPathsRoutes } from './stats/missing-paths.routes.js'
import { MissingPathObject } from './stats/missing-paths.schemas.js'
import { StatsObject } from './stats/stats.schemas.js'
import { OverviewObject } from './stats/overview.schemas.js'
import { tokensRoutes } from './tokens/tokens.routes.js'
import { TokenObject } from './tokens/tokens.schemas.js'
import { dashboardRoutes } from './dashboard/dashboard.routes.js'
import { webhooksRoutes } from './webhooks/webhooks.routes.js'
import { DeliveryObject, WebhookObject } from './webhooks/webhooks.schemas.js'

type Headers = OutgoingHttpHeaders | OutgoingHttpHeader[]

/**
 * Slow clients cannot hold a connection for long: the head must arrive within 10 s, the whole request
 * within `requestTimeout` (408, answered by answerClientError), an idle keep-alive socket closes after
 * 5 s. Fastify's own timeout options are never applied to a server from `serverFactory` (Node's 300 s
 * default held), so they are given to the server here. Node checks for expired requests every
 * `connectionsCheckingInterval` (30 s by default, which could double a 30 s timeout): every second.
 */
const serverTimeouts = (requestTimeout: number) => ({
  requestTimeout,
  headersTimeout: Math.min(10_000, requestTimeout),
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: Math.min(1_000, requestTimeout),
})

/**
 * Stops accepting connections and waits for the open ones to end: each closes after its next response
 * (`Connection: close`, see buildApp), an idle one at the keep-alive timeout. Node's own `close` would
 * reset idle keep-alive connections at once, which a busy client has just been told to reuse: its next
 * request, already on the way, met ECONNRESET. Fastify's `close` follows and finds the server closed.
 */
function drain(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve()
    NetServer.prototype.close.call(server, () => resolve())
  })
}

/**
 * Builds the HTTP application over a container: the redirect fast path in front, then Fastify with
 * the global plugins and the explicit route table below (the whole URL map on one screen).
 */
export async function buildApp(c: Container): Promise<App> {
  const { config } = c
  let closing = false
  /**
   * Once the server is closing, every response (the redirect's, the API's, a fault page) says
   * `Connection: close` and its connection ends after it, however early its request arrived: a
   * keep-alive client then opens a new connection for its next request (another instance answers)
   * instead of sending it on a socket about to be reset. Decided as the head is written, for the
   * cost of one boolean on the redirect's path.
   */
  class Response extends ServerResponse {
    override writeHead(statusCode: number, reason?: string | Headers, headers?: Headers): this {
      if (closing) this.shouldKeepAlive = false
      // Node takes a second argument that is not a string as the headers.
      return super.writeHead(statusCode, reason as string | undefined, headers)
    }
  }
  const trust = compileTrust(config.trustProxy)
  const redirect = createRedirectHandler({
    config,
    trust,
    domains: c.domains,
    resolver: c.linkResolver,
    cache: c.redirectCache,
    sharedClickLimit: c.sharedClickLimit,
    clicks: c.clicks,
    countMissingPath: c.missingPaths.count,
    metrics: c.metrics,
    faults: c.faults,
    clock: c.clock,
    verifyPassword: c.passwordHashing.verify,
    onDatabaseUnavailable: c.databaseHealth.failed,
  })

  const app: App = Fastify({
    loggerInstance: c.logger,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: trust,
    requestIdHeader: false,
    genReqId: requestIdOf,
    routerOptions: { querystringParser: (query: string) => parseParams(query, false), maxParamLength: 1024 },
    // Errors the router raises before any hook runs still get the one error shape and a request id.
    frameworkErrors: (error, req, reply) => {
      sendError(reply.header('X-Request-Id', req.id), toAppError(error))
    },
    clientErrorHandler: answerClientError,
    schemaController: { compilersFactory: lazyCompilers },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, verbose: true, keywords: ['x-error'] } },
    // Shutdown closes connections its own way (drain, above).
    forceCloseConnections: false,
    // Answered below in the error shape instead of Fastify's own body.
    return503OnClosing: false,
    serverFactory: (handler) => {
      const server = createServer({ requireHostHeader: false, ServerResponse: Response, ...serverTimeouts(config.requestTimeoutMs) }, (req, res) => {
        if (req.headers.host === undefined && req.httpVersion === '1.1') return answerMissingHost(res)
        try {
          if (!redirect(req, res, handler)) handler(req, res)
        } catch (error) {
          c.faults.failRequest('server', req, res, error)
        }
      })
      // No socket idle timeout (Fastify's `connectionTimeout`): it would also cut a response the server is
      // still preparing (a QR render waiting in its queue). A connection that sends nothing is closed by
      // headersTimeout, one between requests by keepAliveTimeout.
      return server
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  const answerUnknownRoutes = registerErrorHandling(app, c.databaseHealth.failed)
  registerBodyParsers(app)
  app.addHook('preClose', async () => {
    closing = true
    await drain(app.server)
  })
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id).header('X-Content-Type-Options', 'nosniff')
    // Expected while shutting down, so answered here rather than thrown: Fastify logs it at info, with no stack.
    if (closing) return sendError(reply, serviceUnavailable('the server is shutting down; retry, another instance will answer'))
  })
  const anonymousLimit = registerAnonymousLimit(app, config.anonymousRateLimitPerMinute)
  app.addHook('onResponse', async (req, reply) => {
    c.metrics.observeHttp(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000)
  })
  registerAuth(app, { tokens: c.tokens, sessions: c.sessions, anonymousLimit })
  app.addHook('preValidation', coerceRequest)
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    enableDraftSpec: true,
    // Only authenticated API requests count, each token on its own.
    allowList: (req) => !req.principal,
    keyGenerator: (req) => req.principal?.actor?.id ?? req.ip,
    // Shared by every instance through Redis; while Redis is away requests pass unlimited rather than fail.
    ...(c.redis ? { redis: c.redis, nameSpace: redisKeys(config.redisPrefix).rateLimit, skipOnError: true } : {}),
    errorResponseBuilder: (_req, context) =>
      new AppError(429, 'rate_limited', `over the limit of ${context.max} requests per minute for this token; retry in ${context.after}`),
  })
  app.addHook('onRequest', answerUnknownRoutes)
  registerIdempotency(app, c.idempotency)
  registerAuditTrail(app, c.audit)
  await registerOpenApi(app, [
    LinkObject,
    DomainObject,
    ConversationObject,
    MessageObject,
    StatsObject,
    MissingPathObject,
    OverviewObject,
    SessionObject,
    UserObject,
    MeObject,
    MemberObject,
    InvitationObject,
    TokenObject,
    WebhookObject,
    DeliveryObject,
    AuditEntryObject,
  ])

  opsRoutes(app, { storage: c.storage, health: c.databaseHealth, metrics: c.metrics })
  linksRoutes(app, { links: c.links, bulk: c.linksBulk })
  healthRoutes(app, { health: c.health })
  statsRoutes(app, { stats: c.stats, links: c.links })
  publicStatsRoutes(app, { stats: c.stats, links: c.links })
  missingPathsRoutes(app, { missingPaths: c.missingPaths.service })
  portingRoutes(app, { links: c.links, stats: c.stats, porting: c.porting })
  qrRoutes(app, { qr: c.qr, links: c.links })
  await qrLogoRoutes(app, { logos: c.qrLogos })
  conversationsRoutes(app, { conversations: c.conversations })
  domainsRoutes(app, { domains: c.domains })
  // One sign-in for every way in, so that a failure of any counts against the same limits.
  const signIn = createSignIn(app, { sessions: c.sessions, accounts: c.accounts, audit: c.audit, passwordSignIn: config.passwordSignIn })
  sessionsRoutes(app, { sessions: c.sessions, signIn })
  ssoRoutes(app, { sso: c.sso, name: config.oidc?.name, publicUrl: config.publicUrl, passwordSignIn: config.passwordSignIn, signIn })
  accountsRoutes(app, { accounts: c.accounts, members: c.members })
  auditRoutes(app, { audit: c.audit })
  invitationsRoutes(app, { invitations: c.invitations, sessions: c.sessions, audit: c.audit, config })
  passwordsRoutes(app, { resets: c.passwordResets, setup: c.setup, signIn, audit: c.audit, config })
  tokensRoutes(app, { tokens: c.tokens })
  dashboardRoutes(app, {
    rootUrl: config.rootUrl,
    domains: c.domains,
    bootstrapWorkspace: config.bootstrapOwner,
    signIn: { ssoName: config.oidc?.name ?? null, password: config.passwordSignIn },
  })
  webhooksRoutes(app, { webhooks: c.webhooks })

  return app
}
