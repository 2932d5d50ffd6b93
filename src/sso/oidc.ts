import type { BaseLogger } from 'pino'
import {
  allowInsecureRequests,
  authorizationCodeGrant,
  AuthorizationResponseError,
  buildAuthorizationUrl,
  calculatePKCECodeChallenge,
  ClientError,
  ClientSecretBasic,
  ClientSecretPost,
  discovery,
  fetchUserInfo,
  randomNonce,
  randomPKCECodeVerifier,
  randomState,
  ResponseBodyError,
  WWWAuthenticateChallengeError,
  type ClientAuth,
  type Configuration,
} from 'openid-client'
import { SsoError, SsoRefused, SsoUnavailable } from './sso.errors.js'

/** What `begin` hands the caller to keep (sealed, in a short-lived cookie) until the person comes back to `finish`. */
export interface OidcPending {
  readonly state: string
  readonly nonce: string
  /** The PKCE verifier: secret until the token request. */
  readonly codeVerifier: string
  readonly redirectUri: string
}

/** Who the provider says signed in. */
export interface OidcIdentity {
  /** The provider's stable id of the person (`sub`). */
  readonly subject: string
  /** As the provider sent it (trimmed): compare case-insensitively. */
  readonly email: string
  /** Whether the provider vouches that the person controls that address (`email_verified`). */
  readonly emailVerified: boolean
  readonly name: string | null
}

export interface OidcOptions {
  /** The issuer identifier, exactly as the provider's discovery document states it. */
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  readonly logger?: Pick<BaseLogger, 'warn'>
  /** Lets an http:// issuer be used (a provider on the loopback in tests); https only otherwise. */
  readonly allowInsecureIssuer?: boolean
  /** Longest wait for each request to the provider, in seconds (a person is waiting on a page). */
  readonly timeoutSeconds?: number
}

const SCOPE = 'openid email profile'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])
/**
 * Whether an issuer is on this machine's loopback, where plain http cannot be overheard: the only
 * place an http issuer is accepted (a provider in tests, or beside Linkline for a trial).
 */
export const onLoopback = (issuer: string): boolean => LOOPBACK.has(URL.parse(issuer)?.hostname ?? '')

/**
 * The OpenID Connect client of single sign-on (docs/sso.md): the authorization code flow with PKCE
 * (S256), `state` and `nonce`, through openid-client, which checks all three. The provider is
 * discovered at the first use, not at start, so that a provider down at start costs no more than a
 * page saying so; a failed discovery is tried again at the next sign-in.
 */
export function createOidc(options: OidcOptions) {
  const { issuer, clientId, clientSecret, logger, allowInsecureIssuer = false, timeoutSeconds = 10 } = options
  let discovered: Promise<Configuration> | undefined

  async function discover(): Promise<Configuration> {
    const url = URL.parse(issuer)
    const unavailable = 'single sign-on is unavailable right now'
    if (url === null || (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowInsecureIssuer))) {
      throw new SsoUnavailable(unavailable, `the issuer ${issuer} is not an https URL`)
    }
    try {
      return await discovery(url, clientId, { client_secret: clientSecret }, clientAuthentication(clientSecret), {
        timeout: timeoutSeconds,
        execute: allowInsecureIssuer ? [allowInsecureRequests] : [],
      })
    } catch (error) {
      const failure = new SsoUnavailable(unavailable, `discovery of ${issuer} failed: ${detail(error)}`, { cause: error })
      logger?.warn({ err: failure, issuer }, 'single sign-on: the provider could not be discovered')
      throw failure
    }
  }
  const configuration = (): Promise<Configuration> => {
    discovered ??= discover().catch((error: unknown) => {
      discovered = undefined
      throw error
    })
    return discovered
  }

  return {
    /** Where to send the person (302), and what to keep for `finish`. `redirectUri` is `<public URL>/v1/auth/oidc/callback`. */
    async begin(redirectUri: string): Promise<{ url: string; pending: OidcPending }> {
      const config = await configuration()
      const codeVerifier = randomPKCECodeVerifier()
      const pending = { state: randomState(), nonce: randomNonce(), codeVerifier, redirectUri }
      const url = buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: SCOPE,
        code_challenge: await calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      })
      return { url: url.href, pending }
    },

    /**
     * Checks the provider's answer at the callback against `pending`: its state, then the code,
     * exchanged with the PKCE verifier and the client secret, then the ID token's issuer, audience,
     * expiry and nonce (the token comes straight from the token endpoint over TLS, which OpenID Connect
     * accepts in place of checking its signature). The person's claims come from the ID token, else
     * from the userinfo endpoint. Any failure is an SsoRefused or an SsoUnavailable.
     */
    async finish(callbackUrl: URL, pending: OidcPending): Promise<OidcIdentity> {
      const config = await configuration()
      // The token request must name the redirect URI of the authorization request exactly, whatever host or
      // proxy the callback came through: only the callback's parameters are taken from it.
      try {
        const answer = new URL(pending.redirectUri)
        answer.search = callbackUrl.search
        const tokens = await authorizationCodeGrant(config, answer, {
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          pkceCodeVerifier: pending.codeVerifier,
        })
        const idToken = tokens.claims()
        if (idToken === undefined) throw new SsoRefused('the provider sent no ID token')
        const claims =
          typeof idToken.email === 'string' || config.serverMetadata().userinfo_endpoint === undefined
            ? idToken
            : { ...(await fetchUserInfo(config, tokens.access_token, idToken.sub)), ...idToken }
        return identity(idToken.sub, claims)
      } catch (error) {
        throw classify(error)
      }
    },
  }
}
export type Oidc = ReturnType<typeof createOidc>

/** client_secret_basic, the default of RFC 8414, unless the provider offers client_secret_post alone. */
function clientAuthentication(secret: string): ClientAuth {
  const basic = ClientSecretBasic(secret)
  const post = ClientSecretPost(secret)
  return (as, client, body, headers) => {
    const methods = as.token_endpoint_auth_methods_supported
    const postOnly = methods !== undefined && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
    ;(postOnly ? post : basic)(as, client, body, headers)
  }
}

function identity(subject: string, claims: Record<string, unknown>): OidcIdentity {
  const email = typeof claims.email === 'string' ? claims.email.trim() : ''
  if (email === '') {
    throw new SsoRefused('the provider did not share an email address: Linkline needs the "email" scope and claim', `claims of ${subject}`)
  }
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new SsoRefused('the provider sent an email claim that is not an email address', email)
  const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '')
  const name = text(claims.name) || [text(claims.given_name), text(claims.family_name)].filter(Boolean).join(' ')
  // Some providers send the claim as a string.
  const emailVerified = claims.email_verified === true || claims.email_verified === 'true'
  return { subject, email, emailVerified, name: name === '' ? null : name }
}

const UNAVAILABLE_CODES = new Set(['OAUTH_TIMEOUT', 'OAUTH_ABORT', 'OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON'])

/** Every failure of `finish` as an SsoError: refused when it concerns this sign-in, unavailable when the provider or its set-up is at fault. */
function classify(error: unknown): SsoError {
  if (error instanceof SsoError) return error
  const options = { cause: error }
  if (error instanceof AuthorizationResponseError) {
    if (error.error === 'access_denied') return new SsoRefused('the sign-in was cancelled or refused at the provider', error.error_description, options)
    return new SsoRefused(`the provider refused the sign-in (${error.error})`, error.error_description, options)
  }
  // With client_secret_basic, a wrong secret is a 401 whose challenge says invalid_client; with client_secret_post, a 400 body.
  const code = error instanceof ResponseBodyError ? error.error : error instanceof WWWAuthenticateChallengeError ? error.cause[0]?.parameters.error : undefined
  if (code === 'invalid_client' || code === 'unauthorized_client') {
    return new SsoUnavailable('single sign-on is not set up correctly: the provider refused its client id or secret', detail(error), options)
  }
  if (error instanceof ResponseBodyError) {
    return new SsoRefused('the provider did not accept this sign-in: it expired, was used already, or was begun elsewhere', detail(error), options)
  }
  if (error instanceof ClientError && error.code !== undefined && UNAVAILABLE_CODES.has(error.code)) {
    return new SsoUnavailable('the provider did not answer as expected: try again later', detail(error), options)
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    return new SsoUnavailable('the provider cannot be reached right now: try again later', detail(error), options)
  }
  return new SsoRefused('the answer from the provider failed a security check', detail(error), options)
}

/** An error and its causes in one line, for logs: `fetch failed: connect ECONNREFUSED 127.0.0.1:9`. */
function detail(error: unknown): string {
  const parts: string[] = []
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const extra = e instanceof ResponseBodyError || e instanceof AuthorizationResponseError ? ` ${e.error}: ${e.error_description ?? ''}` : ''
    parts.push(`${e.message}${extra}`.trim())
  }
  return parts.join(': ') || String(error)
}
