import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../http/types.js'
import { setSessionCookie } from '../sessions/cookie.js'
import type { SignIn } from '../sessions/sign-in.js'
import { AppError, notFound } from '../shared/errors.js'
import { errorResponses } from '../shared/schema.js'
import { pendingCookie, setPendingCookie } from './cookie.js'
import { SsoError, SsoUnavailable } from './sso.errors.js'
import { AuthMethodsEnvelope, AuthMethodsQuery } from './sso.schemas.js'
import type { SsoService } from './sso.service.js'

export const SSO_START = '/v1/auth/oidc/start'
export const SSO_CALLBACK = '/v1/auth/oidc/callback'
/** Where a person lands: the dashboard, which shows `sso_error` when there is one. */
const DASHBOARD = '/app/'
const REASON_MAX = 200
// A run like this is a code, a state, a token: never put in a URL that proxies log and browsers keep.
const TOKEN_LIKE = /[A-Za-z0-9_~+/=.-]{24,}/

/**
 * The reason a person is shown for a failed single sign-on, for the dashboard's URL: the error's
 * sentence for people, on one line, short, and never anything that looks like a credential. An error
 * that is not a refusal (a fault of the server) is thrown again, for the error handler.
 */
function reasonFor(error: unknown): string {
  let reason: string
  if (error instanceof SsoError) reason = error.reason
  else if (error instanceof AppError && error.statusCode < 500) reason = error.message
  else throw error
  reason = reason.replace(/[\p{Cc}\s]+/gu, ' ').trim()
  if (reason === '' || TOKEN_LIKE.test(reason)) return 'single sign-on did not complete: start again'
  return reason.length > REASON_MAX ? `${reason.slice(0, REASON_MAX - 1)}…` : reason
}

const away = (reply: FastifyReply, location: string) => reply.header('Cache-Control', 'no-store').redirect(location, 302)

function refuse(req: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const reason = reasonFor(error)
  if (error instanceof SsoUnavailable) req.log.warn({ err: error }, 'single sign-on: unavailable')
  else req.log.info({ err: error }, 'single sign-on: refused')
  return away(reply, `${DASHBOARD}?sso_error=${encodeURIComponent(reason)}`)
}

/**
 * Single sign-on (docs/sso.md): the start, which sends the browser to the provider, and the callback
 * it comes back to. Both are page navigations of a person, so every outcome is a redirect: into the
 * dashboard signed in, or to the dashboard with the reason (`/app/?sso_error=…`), never the API's
 * error envelope. And how people sign in here, for the sign-in page.
 */
export function ssoRoutes(
  app: App,
  deps: { sso: SsoService | undefined; name: string | undefined; publicUrl: string | undefined; passwordSignIn: boolean; signIn: SignIn },
): void {
  const { sso, signIn } = deps
  const configured = (): SsoService => {
    if (sso === undefined) throw notFound('single sign-on: it is not configured on this server (LINKLINE_OIDC_ISSUER)')
    return sso
  }
  // The redirect URI the provider has registered; without LINKLINE_PUBLIC_URL, this request's own origin.
  const originOf = (req: FastifyRequest) => deps.publicUrl ?? `${req.protocol}://${req.host}`

  app.get(
    '/v1/auth/methods',
    {
      schema: {
        tags: ['sessions'],
        security: [],
        querystring: AuthMethodsQuery,
        summary: 'How people sign in here: with a password, and with single sign-on (its name and where its button leads)',
        description: 'No token needed: the sign-in page reads it to show the password form and the single sign-on button that are enabled on this server.',
        response: { 200: AuthMethodsEnvelope, ...errorResponses },
      },
    },
    async (_req, reply) => {
      // Changes only with the configuration, at a restart.
      reply.header('Cache-Control', 'public, max-age=60')
      const ssoMethod = sso === undefined ? null : { name: deps.name ?? 'SSO', startUrl: SSO_START }
      return { success: true as const, data: { password: deps.passwordSignIn, sso: ssoMethod } }
    },
  )

  app.get(SSO_START, { schema: { hide: true } }, async (req, reply) => {
    const service = configured()
    try {
      const { url, sealed } = await service.begin(`${originOf(req)}${SSO_CALLBACK}`)
      setPendingCookie(req, reply, sealed)
      return away(reply, url)
    } catch (error) {
      return refuse(req, reply, error)
    }
  })

  // Not guarded by refuseCrossSite: the browser comes from the provider's site. What stops someone
  // slipping their own sign-in into another's browser is the state bound to this browser's cookie.
  app.get(SSO_CALLBACK, { schema: { hide: true } }, async (req, reply) => {
    const service = configured()
    // Used once, whatever the outcome: a reload or a second callback finds none.
    setPendingCookie(req, reply, null)
    try {
      // Only its query counts (oidc.ts): the host it came through does not.
      const callbackUrl = URL.parse(req.url, originOf(req)) ?? new URL(originOf(req))
      const opened = await signIn.withSso(req, async () => service.userFor(await service.identify(callbackUrl, pendingCookie(req))))
      setSessionCookie(req, reply, opened.value)
      return away(reply, DASHBOARD)
    } catch (error) {
      return refuse(req, reply, error)
    }
  })
}
