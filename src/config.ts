import { dirname, resolve } from 'node:path'
import { isHostName, normalizeHostAndPort, parseHost } from './shared/hosts.js'
import type { TrustProxy } from './http/client-address.js'
import { parseTrustProxy } from './config/trust-proxy.js'
import { isMailbox, parseSmtpUrl, redactSmtpUrl } from './mail/addresses.js'
import { SETTINGS, type FlagName, type IntName, type TextName, type TextSetting } from './config/settings.js'
import { geoDatabaseProblem } from './stats/geoip.js'

/**
 * The only reader of the environment. Every setting Linkline understands is listed in
 * config/settings.ts, with its default, range and documentation; `loadConfig` validates them all at
 * start and fails with one clear message per bad value.
 */
export interface Config {
  readonly port: number
  readonly host: string
  readonly databaseUrl: string
  readonly databasePoolSize: number
  readonly databaseStatementTimeoutMs: number
  /** How long a start waits for a database that does not answer yet (services starting together). */
  readonly databaseStartTimeoutMs: number
  readonly redisUrl: string | undefined
  /** Prefix of every Redis key and pub/sub channel, so that several deployments can share one Redis. */
  readonly redisPrefix: string
  /** Default short domains; the first is the default for new links and for unknown hosts. */
  readonly domains: readonly string[]
  /** Host names (or addresses) the API itself is reached by, besides the default domains: never claimable as custom domains. */
  readonly reservedHosts: readonly string[]
  /** Whether a new custom domain waits for its DNS TXT record before it serves links. */
  readonly domainVerification: boolean
  /** How often pending custom domains are looked up again. */
  readonly domainCheckIntervalMs: number
  readonly bootstrapToken: string | undefined
  readonly bootstrapOwner: string
  /** The dashboard's external base URL, an origin (`https://links.example.com`); undefined: taken from each request. */
  readonly publicUrl: string | undefined
  /** Whether people may sign in with a password; off leaves single sign-on (which loadConfig then requires). */
  readonly passwordSignIn: boolean
  /** Single sign-on through an OpenID provider (docs/sso.md); undefined unless its issuer, client id and secret are set. */
  readonly oidc: OidcConfig | undefined
  readonly rateLimitPerMinute: number
  readonly notFoundUrl: string | undefined
  /** Where `/` on a default domain sends a person; by default the dashboard (`/app/`). */
  readonly rootUrl: string | undefined
  /** Scheme of the short URLs that responses and QR codes carry. */
  readonly shortUrlScheme: 'http' | 'https'
  /** Proxies whose X-Forwarded-* headers are believed: none, the nearest n hops, or addresses / CIDR ranges. */
  readonly trustProxy: TrustProxy
  readonly countryHeader: string | undefined
  /** The IP database (MMDB) visits are looked up in; undefined: the one shipped with Linkline (stats/geoip.ts). */
  readonly geoipDb: string | undefined
  readonly logLevel: string
  readonly bodyLimitBytes: number
  readonly redirectCacheSize: number
  readonly clickRetentionDays: number
  readonly clickBufferSize: number
  readonly clickFlushIntervalMs: number
  /** How often written visits are rolled up into the statistics (rollups, breakdowns, uniques). */
  readonly clickRollupIntervalMs: number
  /** How long written visits may wait for the click blocks of the export (a roll-up writes them for every visit waiting then). */
  readonly clickBlockIntervalMs: number
  /** The click writer thread's nice value: 19 (the default) lets it use only CPU that serving leaves idle. */
  readonly clickWriterNice: number
  readonly shutdownTimeoutMs: number
  /** How long a whole request may take to arrive, and a connection may stay silent (slow clients). */
  readonly requestTimeoutMs: number
  /** Worker threads that render QR codes, and how many renders may wait for one (503 beyond). */
  readonly qrThreads: number
  readonly qrQueue: number
  /** Renders one owner may have running or waiting at once (429 beyond), so that others keep a share of the pool. */
  readonly qrPerOwner: number
  /** Requests per minute and client address answered 4xx without a valid token (401, 404, 405…); 429 beyond. */
  readonly anonymousRateLimitPerMinute: number
  /** Whether links created without a title get their destination page's title (titles/). */
  readonly pageTitles: boolean
  /** Whether outbound requests (webhooks, titles, checks) may reach loopback, private and link-local addresses (closed networks, tests). */
  readonly fetchAllowPrivate: boolean
  /** Between two checks of a link's destination; 0: no background checks (LINKLINE_HEALTH_INTERVAL_HOURS). */
  readonly healthIntervalHours: number
  readonly healthConcurrency: number
  /** Key material that encrypts webhook signing secrets at rest (docs/adr/0006-webhook-secrets-at-rest.md). */
  readonly webhooksSecretKey: string | undefined
  /**
   * Where the key is kept when webhooksSecretKey is unset (created at the first start): `linkline.key` in
   * LINKLINE_DATA_DIR, else beside the SQLite file, else in ./data (PostgreSQL).
   */
  readonly webhooksSecretKeyFile: string
  /** How often each server process looks for due webhook deliveries. */
  readonly webhooksPollIntervalMs: number
  /** How long a claimed delivery attempt is leased before it is due again (an attempt a crash cut off). */
  readonly webhooksLeaseMs: number
  /** Settled deliveries (delivered or failed) are kept this long in the delivery log. */
  readonly webhooksRetentionDays: number
  /** The SMTP server for invitations and password resets (it holds the password: log redactSmtpUrl of it); unset, no mail is sent. */
  readonly smtpUrl: string | undefined
  /** The From of those mails: `address` or `Name <address>`. */
  readonly smtpFrom: string
}

export const OIDC_ROLES = ['viewer', 'member', 'admin'] as const

export interface OidcConfig {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  /** The sign-in button reads "Sign in with <name>". */
  readonly name: string
  /** Email domains (lower case) whose people get an account at their first sign-on; empty: existing accounts only. */
  readonly allowedDomains: readonly string[]
  /** The workspace, and the role in it, that an account created by single sign-on joins. */
  readonly defaultWorkspace: string
  readonly defaultRole: (typeof OIDC_ROLES)[number]
}

export type Env = Record<string, string | undefined>

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = []

  // `derived`: the default when loadConfig computes it from other settings.
  const int = (name: IntName, derived?: number): number => {
    const { min, max } = SETTINGS[name]
    const fallback = derived ?? SETTINGS[name].default
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`)
      return fallback
    }
    return Number(raw)
  }
  // The value, else the setting's default: undefined only for a setting that has none.
  const str = <N extends TextName>(name: N): (typeof SETTINGS)[N] extends { default: string } ? string : string | undefined => {
    const { default: fallback }: TextSetting = SETTINGS[name]
    const raw = env[name]
    return (raw === undefined || raw === '' ? fallback : raw) as string
  }

  const port = int('PORT')
  const rawDomains = str('LINKLINE_DOMAINS')
  const domains = rawDomains === undefined ? [`localhost:${port}`] : []
  const domainEntries = (rawDomains ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean)
  if (rawDomains !== undefined && domainEntries.length === 0) problems.push('LINKLINE_DOMAINS must name at least one domain')
  for (const entry of domainEntries) {
    const domain = normalizeHostAndPort(entry)
    if (domain === undefined) {
      problems.push(`LINKLINE_DOMAINS entries must be host or host:port (no scheme, path or user; port 1-65535), got "${entry}"`)
    } else {
      domains.push(domain)
    }
  }

  const reservedHosts = (str('LINKLINE_RESERVED_HOSTS') ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean)
  for (const host of reservedHosts) {
    if (parseHost(host) === undefined) problems.push(`LINKLINE_RESERVED_HOSTS must list host names, without scheme or path (got "${host}")`)
  }
  const verification = str('LINKLINE_DOMAIN_VERIFICATION')
  if (verification !== 'on' && verification !== 'off') problems.push(`LINKLINE_DOMAIN_VERIFICATION must be on or off (got "${verification}")`)

  const databaseUrl = str('DATABASE_URL')
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must start with sqlite: or postgres:// (got "${databaseUrl}")`)
  } else if (databaseUrl === 'sqlite::memory:' || databaseUrl === 'sqlite:') {
    // The click writer thread opens the database a second time, which an in-memory database cannot be.
    problems.push('DATABASE_URL must name a database file (sqlite:./data/linkline.db), not an in-memory database')
  }
  const redisUrl = str('REDIS_URL')
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    problems.push(`REDIS_URL must start with redis:// or rediss:// (got "${redisUrl}")`)
  }
  const notFoundUrl = str('LINKLINE_NOT_FOUND_URL')
  if (notFoundUrl !== undefined && !/^https?:\/\/[^/]/.test(notFoundUrl)) {
    problems.push('LINKLINE_NOT_FOUND_URL must be an absolute http or https URL')
  }
  const rootUrl = str('LINKLINE_ROOT_URL')
  if (rootUrl !== undefined && !/^https?:\/\/[^/]/.test(rootUrl)) {
    problems.push('LINKLINE_ROOT_URL must be an absolute http or https URL')
  }
  const scheme = str('LINKLINE_SHORT_URL_SCHEME')
  if (scheme !== 'http' && scheme !== 'https') problems.push('LINKLINE_SHORT_URL_SCHEME must be http or https')
  const logLevel = str('LOG_LEVEL')
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)
  const trustProxy = parseTrustProxy(str('LINKLINE_TRUST_PROXY'), problems)
  const geoipDb = str('LINKLINE_GEOIP_DB')
  const geoipProblem = geoipDb === undefined ? undefined : geoDatabaseProblem(geoipDb)
  if (geoipProblem !== undefined) problems.push(`LINKLINE_GEOIP_DB ${JSON.stringify(geoipDb)} ${geoipProblem}`)
  const bootstrapToken = str('LINKLINE_BOOTSTRAP_TOKEN')
  if (bootstrapToken !== undefined && bootstrapToken.length < 16) {
    problems.push('LINKLINE_BOOTSTRAP_TOKEN must be at least 16 characters')
  }

  const flag = (name: FlagName): boolean => {
    const raw = env[name]
    if (raw === undefined || raw === '') return SETTINGS[name].default
    if (raw === 'false' || raw === '0') return false
    if (raw === 'true' || raw === '1') return true
    problems.push(`${name} must be true or false (got "${raw}")`)
    return false
  }
  const webhooksSecretKey = str('LINKLINE_WEBHOOKS_SECRET_KEY')
  if (webhooksSecretKey !== undefined && webhooksSecretKey.length < 32) {
    problems.push('LINKLINE_WEBHOOKS_SECRET_KEY must be at least 32 characters (e.g. openssl rand -base64 32)')
  }

  const smtpUrl = str('LINKLINE_SMTP_URL')
  const smtpServer = smtpUrl === undefined ? undefined : parseSmtpUrl(smtpUrl)
  // Shown without its password, as every log line that names the server.
  if (smtpServer !== undefined && 'problem' in smtpServer) problems.push(`LINKLINE_SMTP_URL ${smtpServer.problem} (got "${redactSmtpUrl(String(smtpUrl))}")`)
  const smtpFrom = str('LINKLINE_SMTP_FROM')
  if (!isMailbox(smtpFrom)) problems.push(`LINKLINE_SMTP_FROM must be an address or Name <address> (got ${JSON.stringify(smtpFrom)})`)
  const bootstrapOwner = str('LINKLINE_BOOTSTRAP_OWNER')
  const signIn = parseSignIn(str, bootstrapOwner, problems)

  const pageTitles = str('LINKLINE_PAGE_TITLES')
  if (pageTitles !== 'on' && pageTitles !== 'off') problems.push(`LINKLINE_PAGE_TITLES must be on or off (got "${pageTitles}")`)

  const qrThreads = int('LINKLINE_QR_THREADS')
  const qrQueue = int('LINKLINE_QR_QUEUE')

  const sqliteFile = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : undefined
  const dataDir = str('LINKLINE_DATA_DIR') ?? (sqliteFile === undefined ? 'data' : dirname(sqliteFile))

  const config: Config = {
    port,
    host: str('HOST'),
    databaseUrl,
    databasePoolSize: int('DATABASE_POOL_SIZE'),
    databaseStatementTimeoutMs: int('DATABASE_STATEMENT_TIMEOUT_MS'),
    databaseStartTimeoutMs: int('DATABASE_START_TIMEOUT_MS'),
    redisUrl,
    redisPrefix: str('LINKLINE_REDIS_PREFIX'),
    domains,
    reservedHosts,
    domainVerification: verification !== 'off',
    domainCheckIntervalMs: int('LINKLINE_DOMAIN_CHECK_INTERVAL_MS'),
    bootstrapToken,
    bootstrapOwner,
    ...signIn,
    rateLimitPerMinute: int('LINKLINE_RATE_LIMIT'),
    notFoundUrl,
    rootUrl,
    shortUrlScheme: scheme as 'http' | 'https',
    trustProxy,
    countryHeader: str('LINKLINE_COUNTRY_HEADER')?.toLowerCase(),
    geoipDb: geoipDb === undefined ? undefined : resolve(geoipDb),
    logLevel,
    bodyLimitBytes: int('LINKLINE_BODY_LIMIT'),
    redirectCacheSize: int('LINKLINE_REDIRECT_CACHE_SIZE'),
    clickRetentionDays: int('LINKLINE_CLICK_RETENTION_DAYS'),
    clickBufferSize: int('LINKLINE_CLICK_BUFFER_SIZE'),
    clickFlushIntervalMs: int('LINKLINE_CLICK_FLUSH_INTERVAL_MS'),
    clickRollupIntervalMs: int('LINKLINE_CLICK_ROLLUP_INTERVAL_MS'),
    clickBlockIntervalMs: int('LINKLINE_CLICK_BLOCK_INTERVAL_MS'),
    clickWriterNice: int('LINKLINE_CLICK_WRITER_NICE'),
    shutdownTimeoutMs: int('LINKLINE_SHUTDOWN_TIMEOUT_MS'),
    requestTimeoutMs: int('LINKLINE_REQUEST_TIMEOUT_MS'),
    qrThreads,
    qrQueue,
    // By default a quarter of the pool (threads and queue): four busy workspaces at once fill it.
    qrPerOwner: int('LINKLINE_QR_PER_OWNER', Math.ceil((qrThreads + qrQueue) / 4)),
    anonymousRateLimitPerMinute: int('LINKLINE_ANONYMOUS_RATE_LIMIT'),
    pageTitles: pageTitles !== 'off',
    fetchAllowPrivate: flag('LINKLINE_FETCH_ALLOW_PRIVATE') || flag('LINKLINE_WEBHOOKS_ALLOW_PRIVATE'),
    healthIntervalHours: int('LINKLINE_HEALTH_INTERVAL_HOURS'),
    healthConcurrency: int('LINKLINE_HEALTH_CONCURRENCY'),
    webhooksSecretKey,
    webhooksSecretKeyFile: resolve(dataDir, 'linkline.key'),
    webhooksPollIntervalMs: int('LINKLINE_WEBHOOKS_POLL_INTERVAL_MS'),
    webhooksLeaseMs: int('LINKLINE_WEBHOOKS_LEASE_MS'),
    webhooksRetentionDays: int('LINKLINE_WEBHOOKS_RETENTION_DAYS'),
    smtpUrl,
    smtpFrom,
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`)
  return Object.freeze(config)
}

const isHttpUrl = (url: URL | undefined): url is URL =>
  url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''

/** People's sign-in: LINKLINE_PUBLIC_URL, LINKLINE_PASSWORD_SIGNIN and the LINKLINE_OIDC_* settings. */
function parseSignIn(
  str: (name: TextName) => string | undefined,
  bootstrapOwner: string,
  problems: string[],
): Pick<Config, 'publicUrl' | 'passwordSignIn' | 'oidc'> {
  const rawPublicUrl = str('LINKLINE_PUBLIC_URL')
  const publicUrl = rawPublicUrl === undefined ? undefined : (URL.parse(rawPublicUrl) ?? undefined)
  if (rawPublicUrl !== undefined && !(isHttpUrl(publicUrl) && publicUrl.pathname === '/' && publicUrl.search === '' && publicUrl.hash === '')) {
    problems.push(`LINKLINE_PUBLIC_URL must be an http or https URL without a path, e.g. https://links.example.com (got "${rawPublicUrl}")`)
  }
  const password = str('LINKLINE_PASSWORD_SIGNIN')
  if (password !== 'on' && password !== 'off') problems.push(`LINKLINE_PASSWORD_SIGNIN must be on or off (got "${password}")`)

  const client = {
    LINKLINE_OIDC_ISSUER: str('LINKLINE_OIDC_ISSUER'),
    LINKLINE_OIDC_CLIENT_ID: str('LINKLINE_OIDC_CLIENT_ID'),
    LINKLINE_OIDC_CLIENT_SECRET: str('LINKLINE_OIDC_CLIENT_SECRET'),
  }
  const missing = Object.entries(client).flatMap(([name, value]) => (value === undefined ? [name] : []))
  if (missing.length === 1 || missing.length === 2) {
    problems.push(`single sign-on needs ${Object.keys(client).join(', ')} together (missing: ${missing.join(', ')})`)
  }
  const issuer = client.LINKLINE_OIDC_ISSUER
  const issuerUrl = issuer === undefined ? undefined : (URL.parse(issuer) ?? undefined)
  if (issuer !== undefined && !(isHttpUrl(issuerUrl) && issuerUrl.search === '' && issuerUrl.hash === '')) {
    problems.push(`LINKLINE_OIDC_ISSUER must be an http or https URL, without query or fragment (got "${issuer}")`)
  }
  const allowedDomains = (str('LINKLINE_OIDC_ALLOWED_DOMAINS') ?? '')
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean)
  for (const domain of allowedDomains) {
    if (domain.includes(':') || parseHost(domain)?.hostname !== domain || !isHostName(domain)) {
      problems.push(`LINKLINE_OIDC_ALLOWED_DOMAINS must list email domains such as example.com (got "${domain}")`)
    }
  }
  const role = str('LINKLINE_OIDC_DEFAULT_ROLE') as OidcConfig['defaultRole']
  if (!OIDC_ROLES.includes(role)) problems.push(`LINKLINE_OIDC_DEFAULT_ROLE must be one of ${OIDC_ROLES.join(', ')} (got "${role}")`)
  const name = str('LINKLINE_OIDC_NAME') as string
  const defaultWorkspace = str('LINKLINE_OIDC_DEFAULT_WORKSPACE') ?? bootstrapOwner

  const { LINKLINE_OIDC_CLIENT_ID: clientId, LINKLINE_OIDC_CLIENT_SECRET: clientSecret } = client
  const oidc =
    issuer === undefined || clientId === undefined || clientSecret === undefined
      ? undefined
      : Object.freeze({ issuer, clientId, clientSecret, name, allowedDomains: Object.freeze(allowedDomains), defaultWorkspace, defaultRole: role })
  if (password === 'off' && missing.length === 3) {
    problems.push('LINKLINE_PASSWORD_SIGNIN=off needs single sign-on (LINKLINE_OIDC_ISSUER, …): without it no one could sign in to the dashboard')
  }
  return { publicUrl: publicUrl?.origin, passwordSignIn: password !== 'off', oidc }
}
