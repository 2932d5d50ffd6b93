import { dirname, resolve } from 'node:path'
import { normalizeHostAndPort, parseHost } from './shared/hosts.js'
import proxyAddr from '@fastify/proxy-addr'
import type { TrustProxy } from './http/client-address.js'

/**
 * The only reader of the environment. Every setting Linkline understands is listed here, with its
 * default; `loadConfig` validates them all at start and fails with one clear message per bad value.
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
  readonly rateLimitPerMinute: number
  readonly notFoundUrl: string | undefined
  /** Where `/` on a default domain sends a person; by default the dashboard (`/app/`). */
  readonly rootUrl: string | undefined
  /** Scheme of the short URLs that responses and QR codes carry. */
  readonly shortUrlScheme: 'http' | 'https'
  /** Proxies whose X-Forwarded-* headers are believed: none, the nearest n hops, or addresses / CIDR ranges. */
  readonly trustProxy: TrustProxy
  readonly countryHeader: string | undefined
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
  /** Whether webhooks may target loopback, private and link-local addresses (closed networks, tests). */
  readonly webhooksAllowPrivate: boolean
  /** Key material that encrypts webhook signing secrets at rest (docs/adr/0006-webhook-secrets-at-rest.md). */
  readonly webhooksSecretKey: string | undefined
  /**
   * Where the key is kept when webhooksSecretKey is unset (created at the first start): `linkline.key` in
   * LINKLINE_DATA_DIR, else beside the SQLite file, else in ./data (PostgreSQL).
   */
  readonly webhooksSecretKeyFile: string
  /** How often each server process looks for due webhook deliveries. */
  readonly webhooksPollIntervalMs: number
  /** Settled deliveries (delivered or failed) are kept this long in the delivery log. */
  readonly webhooksRetentionDays: number
}

export type Env = Record<string, string | undefined>

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = []

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`)
      return fallback
    }
    return Number(raw)
  }
  const str = (name: string): string | undefined => (env[name] === '' ? undefined : env[name])

  const port = int('PORT', 8080, 0, 65535)
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
  const verification = str('LINKLINE_DOMAIN_VERIFICATION') ?? 'on'
  if (verification !== 'on' && verification !== 'off') problems.push(`LINKLINE_DOMAIN_VERIFICATION must be on or off (got "${verification}")`)

  const databaseUrl = str('DATABASE_URL') ?? 'sqlite:./data/linkline.db'
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
  const scheme = str('LINKLINE_SHORT_URL_SCHEME') ?? 'http'
  if (scheme !== 'http' && scheme !== 'https') problems.push('LINKLINE_SHORT_URL_SCHEME must be http or https')
  const logLevel = str('LOG_LEVEL') ?? 'info'
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)
  const trustProxy = parseTrustProxy(str('LINKLINE_TRUST_PROXY'), problems)
  const bootstrapToken = str('LINKLINE_BOOTSTRAP_TOKEN')
  if (bootstrapToken !== undefined && bootstrapToken.length < 16) {
    problems.push('LINKLINE_BOOTSTRAP_TOKEN must be at least 16 characters')
  }

  const flag = (name: string): boolean => {
    const raw = str(name)
    if (raw === undefined || raw === 'false' || raw === '0') return false
    if (raw === 'true' || raw === '1') return true
    problems.push(`${name} must be true or false (got "${raw}")`)
    return false
  }
  const webhooksSecretKey = str('LINKLINE_WEBHOOKS_SECRET_KEY')
  if (webhooksSecretKey !== undefined && webhooksSecretKey.length < 32) {
    problems.push('LINKLINE_WEBHOOKS_SECRET_KEY must be at least 32 characters (e.g. openssl rand -base64 32)')
  }

  const qrThreads = int('LINKLINE_QR_THREADS', 1, 1, 64)
  const qrQueue = int('LINKLINE_QR_QUEUE', 32, 0, 10_000)

  const sqliteFile = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : undefined
  const dataDir = str('LINKLINE_DATA_DIR') ?? (sqliteFile === undefined ? 'data' : dirname(sqliteFile))

  const config: Config = {
    port,
    host: str('HOST') ?? '127.0.0.1',
    databaseUrl,
    databasePoolSize: int('DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseStatementTimeoutMs: int('DATABASE_STATEMENT_TIMEOUT_MS', 5000, 0, 3_600_000),
    databaseStartTimeoutMs: int('DATABASE_START_TIMEOUT_MS', 30_000, 0, 3_600_000),
    redisUrl,
    redisPrefix: str('LINKLINE_REDIS_PREFIX') ?? 'linkline:',
    domains,
    reservedHosts,
    domainVerification: verification !== 'off',
    domainCheckIntervalMs: int('LINKLINE_DOMAIN_CHECK_INTERVAL_MS', 5 * 60_000, 100, 86_400_000),
    bootstrapToken,
    bootstrapOwner: str('LINKLINE_BOOTSTRAP_OWNER') ?? 'default',
    rateLimitPerMinute: int('LINKLINE_RATE_LIMIT', 1200, 1, 10_000_000),
    notFoundUrl,
    rootUrl,
    shortUrlScheme: scheme as 'http' | 'https',
    trustProxy,
    countryHeader: str('LINKLINE_COUNTRY_HEADER')?.toLowerCase(),
    logLevel,
    bodyLimitBytes: int('LINKLINE_BODY_LIMIT', 64 * 1024, 1024, 16 * 1024 * 1024),
    redirectCacheSize: int('LINKLINE_REDIRECT_CACHE_SIZE', 100_000, 0, 10_000_000),
    clickRetentionDays: int('LINKLINE_CLICK_RETENTION_DAYS', 90, 1, 36_500),
    clickBufferSize: int('LINKLINE_CLICK_BUFFER_SIZE', 500_000, 100, 10_000_000),
    clickFlushIntervalMs: int('LINKLINE_CLICK_FLUSH_INTERVAL_MS', 1000, 10, 60_000),
    clickRollupIntervalMs: int('LINKLINE_CLICK_ROLLUP_INTERVAL_MS', 10_000, 10, 60_000),
    // At most 30 s: a release before 0016 takes another instance's journal rows as stale at 60 s (docs/operations.md).
    clickBlockIntervalMs: int('LINKLINE_CLICK_BLOCK_INTERVAL_MS', 30_000, 10, 30_000),
    clickWriterNice: int('LINKLINE_CLICK_WRITER_NICE', 19, 0, 19),
    shutdownTimeoutMs: int('LINKLINE_SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: int('LINKLINE_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    qrThreads,
    qrQueue,
    // By default a quarter of the pool (threads and queue): four busy workspaces at once fill it.
    qrPerOwner: int('LINKLINE_QR_PER_OWNER', Math.ceil((qrThreads + qrQueue) / 4), 1, 10_064),
    anonymousRateLimitPerMinute: int('LINKLINE_ANONYMOUS_RATE_LIMIT', 300, 1, 10_000_000),
    webhooksAllowPrivate: flag('LINKLINE_WEBHOOKS_ALLOW_PRIVATE'),
    webhooksSecretKey,
    webhooksSecretKeyFile: resolve(dataDir, 'linkline.key'),
    webhooksPollIntervalMs: int('LINKLINE_WEBHOOKS_POLL_INTERVAL_MS', 1000, 10, 60_000),
    webhooksRetentionDays: int('LINKLINE_WEBHOOKS_RETENTION_DAYS', 30, 1, 36_500),
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`)
  return Object.freeze(config)
}

/**
 * LINKLINE_TRUST_PROXY: `false` (the default), `true` (one proxy in front: the same as `1`), a number
 * of hops, or a comma-separated list of proxy addresses and CIDR ranges (`10.0.0.0/8, loopback`).
 */
function parseTrustProxy(raw: string | undefined, problems: string[]): TrustProxy {
  if (raw === undefined || ['false', 'no', '0'].includes(raw)) return false
  if (['true', 'yes'].includes(raw)) return 1
  if (/^\d{1,2}$/.test(raw)) return Number(raw)
  const list = raw
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean)
  try {
    proxyAddr.compile(list)
    return Object.freeze(list)
  } catch {
    problems.push(`LINKLINE_TRUST_PROXY must be true, false, a number of hops or a list of addresses / CIDR ranges (got "${raw}")`)
    return false
  }
}
