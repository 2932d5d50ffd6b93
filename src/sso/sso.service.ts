import type { BaseLogger } from 'pino'
import type { AccountsService } from '../accounts/accounts.service.js'
import type { Role } from '../accounts/roles.js'
import type { OidcConfig } from '../config.js'
import type { Clock } from '../shared/clock.js'
import { AppError } from '../shared/errors.js'
import { createOidc, onLoopback, type Oidc, type OidcIdentity } from './oidc.js'
import { openPending, sealPending } from './pending.js'
import { SsoRefused } from './sso.errors.js'

/** Who gets an account at their first single sign-on, and where (LINKLINE_OIDC_*). */
export interface SsoAccountRules {
  /** Lower-case email domains; a domain matches exactly (a subdomain is another domain). */
  readonly allowedDomains: readonly string[]
  readonly defaultWorkspace: string
  readonly defaultRole: Role
}

/**
 * Single sign-on (docs/sso.md) between the OpenID client and the people of this server: the pending
 * sign-in sealed into its cookie and opened again, and the account rules. `key` gives the 32 bytes
 * that seal the cookie, the same on every instance.
 */
export function createSsoService(deps: { oidc: Oidc; accounts: AccountsService; rules: SsoAccountRules; key: () => Buffer; clock: Clock }) {
  const { oidc, accounts, rules, key, clock } = deps

  /** The account an allowed domain's person gets: created with the provider's name (or the email's local part), in the default workspace. */
  async function createAccount(identity: OidcIdentity): Promise<string> {
    const name = identity.name ?? identity.email.slice(0, identity.email.lastIndexOf('@'))
    let userId: string
    try {
      userId = (await accounts.createUser({ email: identity.email, name })).id
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      // The same person's first sign-in in another tab created it meanwhile: join it as that one would.
      const existing = error.statusCode === 409 ? await accounts.findUserByEmail(identity.email) : undefined
      if (existing === undefined) throw new SsoRefused('the provider sent an email address Linkline cannot use', `${identity.email}: ${error.message}`)
      userId = existing.id
    }
    await accounts.join(userId, rules.defaultWorkspace, rules.defaultRole)
    return userId
  }

  return {
    /** Where to send the person (302), and the sealed value of the cookie that keeps the pending sign-in until the callback. */
    async begin(redirectUri: string): Promise<{ url: string; sealed: string }> {
      const { url, pending } = await oidc.begin(redirectUri)
      return { url, sealed: sealPending(pending, key(), clock.now()) }
    },

    /** Who the provider's answer at the callback names, checked against the pending sign-in its cookie carries; SsoError otherwise. */
    async identify(callbackUrl: URL, sealed: string | undefined): Promise<OidcIdentity> {
      return oidc.finish(callbackUrl, openPending(sealed, key(), clock.now()))
    },

    /**
     * The account rules: the user an identity signs in as. Only an email the provider vouches for
     * counts: it signs in the user with that email (compared case-insensitively), else, when its
     * domain is allowed, a new user in the default workspace. Anyone else: SsoRefused.
     */
    async userFor(identity: OidcIdentity): Promise<string> {
      const { email } = identity
      if (!identity.emailVerified) {
        throw new SsoRefused('the provider has not verified your email address: ask its administrator', `email_verified is not true for ${email}`)
      }
      const existing = await accounts.findUserByEmail(email)
      if (existing !== undefined) return existing.id
      const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase()
      if (!rules.allowedDomains.includes(domain)) {
        throw new SsoRefused(
          'there is no account here for your email address: ask an admin for an invitation',
          `no user ${email}, and ${domain} is not allowed`,
        )
      }
      return createAccount(identity)
    },
  }
}

export type SsoService = ReturnType<typeof createSsoService>

/**
 * Single sign-on as configured (LINKLINE_OIDC_*), or undefined without it. An http issuer is accepted
 * on the loopback only (onLoopback). `key` is derived from key material every instance shares, so that
 * any instance may take the callback of a sign-in another one started.
 */
export function createSso(
  config: OidcConfig | undefined,
  deps: { accounts: AccountsService; logger: Pick<BaseLogger, 'warn'>; key: () => Buffer; clock: Clock },
): SsoService | undefined {
  if (config === undefined) return undefined
  const { issuer, clientId, clientSecret } = config
  const oidc = createOidc({ issuer, clientId, clientSecret, logger: deps.logger, allowInsecureIssuer: onLoopback(issuer) })
  return createSsoService({ oidc, accounts: deps.accounts, rules: config, key: deps.key, clock: deps.clock })
}
