import { flag, int, text, type Setting } from './setting-kinds.js'
import { SIGN_IN_SETTINGS } from './settings-sign-in.js'
import { WEBHOOK_SETTINGS } from './settings-webhooks.js'

/**
 * Every environment variable Linkline reads, said once: `loadConfig` (src/config.ts) takes each default
 * and range from here, and `npm run docs:settings` renders the tables of README.md ("Configuration",
 * the `common` ones) and docs/operations.md ("Every setting", all of them) from the same entries.
 * Descriptions are Markdown; links in `scaleOut` are relative to docs/ (it appears in operations.md only).
 * A new setting is an entry here, or in the group's own file (settings-sign-in.ts), then `npm run docs:settings`;
 * loadConfig's readers take listed names only.
 */

export { GROUPS, type FlagSetting, type IntSetting, type Setting, type TextSetting } from './setting-kinds.js'

export const SETTINGS = {
  PORT: int({ group: 'Server', common: true, default: 8080, min: 0, max: 65535, meaning: 'listen port' }),
  HOST: text({
    group: 'Server',
    common: true,
    default: '127.0.0.1',
    meaning: 'listen address (`0.0.0.0` to listen on every interface)',
    scaleOut: '`0.0.0.0` behind a load balancer',
  }),
  LINKLINE_TRUST_PROXY: text({
    group: 'Server',
    common: true,
    default: 'false',
    meaning:
      'the proxies whose `X-Forwarded-*` headers are believed: `true` (one proxy, same as `1`), a number of hops, or a comma-separated ' +
      'list of addresses / CIDR ranges; the client is the right-most untrusted `X-Forwarded-For` hop',
    scaleOut:
      '`true` (= `1`) behind one load balancer; the number of proxies when there are more (a CDN, then a balancer: `2`), or their ' +
      'addresses / CIDR ranges (`10.0.0.0/8`)',
  }),
  LINKLINE_COUNTRY_HEADER: text({
    group: 'Server',
    meaning: "a request header set by a trusted proxy or CDN (e.g. `CF-IPCountry`) that carries the visitor's country",
  }),
  LINKLINE_BODY_LIMIT: int({ group: 'Server', default: 64 * 1024, min: 1024, max: 16 * 1024 * 1024, meaning: 'largest request body in bytes (413 beyond)' }),
  LINKLINE_SHUTDOWN_TIMEOUT_MS: int({
    group: 'Server',
    default: 10_000,
    min: 100,
    max: 600_000,
    meaning: 'how long a graceful shutdown (SIGTERM, SIGINT) may take before the process exits with 1',
    scaleOut: 'let the load balancer or orchestrator wait this long, and a margin, before it kills an instance',
  }),
  LINKLINE_REQUEST_TIMEOUT_MS: int({
    group: 'Server',
    default: 30_000,
    min: 100,
    max: 600_000,
    meaning:
      'longest a whole request may take to arrive (then 408 and the connection is closed); request heads have 10 s (or this, if shorter), an idle keep-alive connection 5 s. A response may take longer: these bound what the client sends',
  }),
  LOG_LEVEL: text({
    group: 'Server',
    common: true,
    default: 'info',
    meaning:
      'pino log level (`fatal` … `trace`, `silent`); request logs carry client addresses cut to /24 (IPv4) or /48 (IPv6), in full only ' +
      'at `debug` and `trace`; on a terminal the lines are for people (pino-pretty), otherwise JSON lines',
    scaleOut: 'Redis connection changes are logged at `info` / `warn`, once per transition',
  }),

  DATABASE_URL: text({
    group: 'Database and Redis',
    common: true,
    default: 'sqlite:./data/linkline.db',
    meaning: '`sqlite:<path>` (embedded, the default; a file, not `:memory:`) or `postgres://user:password@host:5432/db`',
    scaleOut:
      'PostgreSQL. To keep Linkline in a schema of its own, add `?options=-c%20search_path%3Dlinkline` (the schema must exist; ' +
      'migrations create their tables there)',
  }),
  DATABASE_POOL_SIZE: int({
    group: 'Database and Redis',
    default: 10,
    min: 1,
    max: 1000,
    meaning: 'PostgreSQL connections per instance',
    scaleOut: 'see [Sizing](#sizing)',
  }),
  DATABASE_START_TIMEOUT_MS: int({
    group: 'Database and Redis',
    default: 30_000,
    min: 0,
    max: 3_600_000,
    meaning:
      'how long a start waits for a database that does not answer yet (connection refused, starting up: services starting together), ' +
      'logging each wait, then fails; 0: fail at once',
  }),
  DATABASE_STATEMENT_TIMEOUT_MS: int({
    group: 'Database and Redis',
    default: 5000,
    min: 0,
    max: 3_600_000,
    meaning: 'PostgreSQL statement timeout: a statement running longer is cancelled and the request answered 503 (0: no limit)',
  }),
  REDIS_URL: text({
    group: 'Database and Redis',
    common: true,
    meaning: '`redis://[:password@]host:6379[/db]`, or `rediss://` for TLS; when set: shared rate limits and redirect-cache invalidation ' + 'across instances',
  }),
  LINKLINE_REDIS_PREFIX: text({
    group: 'Database and Redis',
    default: 'linkline:',
    meaning: 'prefix of every Redis key and pub/sub channel',
    scaleOut: 'give each deployment sharing one Redis its own',
  }),

  LINKLINE_DOMAINS: text({
    group: 'Domains and short URLs',
    common: true,
    derived: '`localhost:<PORT>`',
    meaning:
      'comma-separated default short domains, each `host` or `host:port` (no scheme or path; lower-cased); the first is the default ' +
      'for new links and for unknown hosts. Links keep the domain they were made on: after changing this (or `PORT` with the ' +
      'default), the start log names the domains left behind and `linkline domains rename` moves their links',
    scaleOut: 'the same on every instance (see [Changing the short domains](#changing-the-short-domains))',
  }),
  LINKLINE_RESERVED_HOSTS: text({
    group: 'Domains and short URLs',
    meaning:
      'comma-separated host names (or addresses) the API itself is reached by besides the default domains, e.g. `api.example`: never ' +
      'claimable as custom domains, and treated as this service when destinations are checked for loops',
    scaleOut: "the load balancer's name too; the same on every instance",
  }),
  LINKLINE_DOMAIN_VERIFICATION: text({
    group: 'Domains and short URLs',
    default: 'on',
    meaning: '`off` makes new custom domains verified at once, without a DNS TXT record (closed deployments where every tenant is trusted)',
    scaleOut: 'see [Domain verification](#domain-verification)',
  }),
  LINKLINE_DOMAIN_CHECK_INTERVAL_MS: int({
    group: 'Domains and short URLs',
    default: 5 * 60_000,
    min: 100,
    max: 86_400_000,
    meaning: 'how often pending custom domains are looked up again in DNS',
    scaleOut: 'each instance re-checks them on this period',
  }),
  LINKLINE_SHORT_URL_SCHEME: text({
    group: 'Domains and short URLs',
    common: true,
    default: 'http',
    meaning: 'scheme of the `shortUrl` in responses and QR codes (`https` in production)',
  }),
  LINKLINE_NOT_FOUND_URL: text({ group: 'Domains and short URLs', meaning: 'where an unknown short path redirects (302) instead of the 404 page' }),
  LINKLINE_ROOT_URL: text({
    group: 'Domains and short URLs',
    meaning: 'where `/` on a default domain redirects (302); unset: the dashboard, `/app/`',
  }),

  LINKLINE_BOOTSTRAP_TOKEN: text({
    group: 'Tokens and rate limits',
    common: true,
    meaning: 'when set (≥ 16 characters), a token with exactly this value is ensured at start',
    scaleOut: 'safe on every instance: instances starting together create it once',
  }),
  LINKLINE_BOOTSTRAP_OWNER: text({
    group: 'Tokens and rate limits',
    default: 'default',
    meaning: 'owner of the bootstrap token, and of the token printed on first start',
  }),
  LINKLINE_RATE_LIMIT: int({
    group: 'Tokens and rate limits',
    default: 1200,
    min: 1,
    max: 10_000_000,
    meaning: 'requests per minute per token on `/v1`',
    scaleOut: 'across all instances when Redis is set; counted per instance without it (a token may send N × this)',
  }),
  LINKLINE_ANONYMOUS_RATE_LIMIT: int({
    group: 'Tokens and rate limits',
    default: 300,
    min: 1,
    max: 10_000_000,
    meaning:
      'per client address and minute: requests answered 4xx without a valid token (401, 404, 405…), and every request for public ' +
      'statistics (`/v1/public/…`); 429 beyond, for the rest of the minute (`/healthz` and `/readyz` are never refused)',
    scaleOut: "counted per instance. Behind a proxy it needs `LINKLINE_TRUST_PROXY`, or every client shares the proxy's budget",
  }),

  ...SIGN_IN_SETTINGS,

  LINKLINE_REDIRECT_CACHE_SIZE: int({
    group: 'Visits and statistics',
    default: 100_000,
    min: 0,
    max: 10_000_000,
    meaning: 'entries of the in-process redirect cache (0 disables it)',
    scaleOut: 'per instance; ignored (0) on PostgreSQL without Redis',
  }),
  LINKLINE_CLICK_RETENTION_DAYS: int({
    group: 'Visits and statistics',
    default: 90,
    min: 1,
    max: 36_500,
    meaning: 'raw clicks older than this are pruned; hourly rollups stay',
  }),
  LINKLINE_CLICK_BUFFER_SIZE: int({
    group: 'Visits and statistics',
    default: 500_000,
    min: 100,
    max: 10_000_000,
    meaning: 'visits buffered in memory before new ones are dropped (and counted); ~75 bytes each, so ~38 MB when full',
    scaleOut: 'per instance',
  }),
  LINKLINE_CLICK_FLUSH_INTERVAL_MS: int({
    group: 'Visits and statistics',
    default: 1000,
    min: 10,
    max: 60_000,
    meaning: 'how often buffered visits are written (to the click journal: from then on a crash loses none)',
    scaleOut: 'each instance writes its own buffer',
  }),
  LINKLINE_CLICK_ROLLUP_INTERVAL_MS: int({
    group: 'Visits and statistics',
    default: 10_000,
    min: 10,
    max: 60_000,
    meaning:
      'how often written visits are rolled up into the statistics (counted from the first batch written since the last roll-up: an ' +
      'idle instance does not roll up); statistics lag by up to this plus a flush interval, and a shorter interval costs more CPU per visit',
    scaleOut: 'each instance rolls up what it wrote; see [performance.md](performance.md) for the cost',
  }),
  // At most 30 s: a release before 0016 takes another instance's journal rows as stale at 60 s (docs/operations.md).
  LINKLINE_CLICK_BLOCK_INTERVAL_MS: int({
    group: 'Visits and statistics',
    default: 30_000,
    min: 10,
    max: 30_000,
    meaning:
      'how long written visits may wait for their click blocks (the clicks export): the roll-up due then writes them for every visit ' +
      'waiting, in one block per link and hour, which costs per link, not per visit; the export lags by up to this plus a flush ' +
      'interval. Shorter costs more CPU and disk writes per visit; at or below the roll-up interval, blocks come with every roll-up',
  }),
  LINKLINE_GEOIP_DB: text({
    group: 'Visits and statistics',
    meaning:
      "an IP database file in MaxMind's format (`.mmdb`, country or city: GeoLite2, DB-IP…) in which visits are looked up for their " +
      'country (when `LINKLINE_COUNTRY_HEADER` gives none) and, in a city database, their city; unset, the IP-to-country database ' +
      'shipped with Linkline. A file that cannot be read, or is not such a database, stops the start',
    scaleOut: 'the same file on every instance; read once at start into the memory of the click writer thread',
  }),
  LINKLINE_CLICK_WRITER_NICE: int({
    group: 'Visits and statistics',
    default: 19,
    min: 0,
    max: 19,
    meaning:
      'nice value of the click writer thread: 19 records visits with CPU that serving leaves idle (redirects first; on a saturated ' +
      'machine visits are buffered, then dropped and counted), 0 competes equally',
  }),

  LINKLINE_QR_THREADS: int({
    group: 'QR codes',
    default: 1,
    min: 1,
    max: 64,
    meaning:
      'worker threads rendering QR codes at nice 10, off the event loop, so that a 4096-pixel code (over a second of CPU) never delays ' +
      'a redirect; rendered images are cached (32 MiB, by ETag)',
  }),
  LINKLINE_QR_QUEUE: int({
    group: 'QR codes',
    default: 32,
    min: 0,
    max: 10_000,
    meaning: 'renders that may wait for a thread; beyond, 503 `service_unavailable` with `Retry-After: 1`',
  }),
  LINKLINE_QR_PER_OWNER: int({
    group: 'QR codes',
    derived: 'a quarter of threads + queue',
    default: 9,
    min: 1,
    max: 10_064,
    meaning: 'renders one owner may have running or waiting; beyond, 429 `rate_limited` for that owner alone',
  }),

  LINKLINE_FETCH_ALLOW_PRIVATE: flag({
    group: 'Outbound requests',
    meaning:
      '`true` lets the requests Linkline makes (webhook deliveries, page titles, destination checks) reach loopback, private, ' +
      'link-local and other non-public addresses (closed networks, tests); otherwise every address is checked after resolution, on every redirect',
    scaleOut: '`true` only where every tenant is trusted: links and webhooks could otherwise probe the internal network',
  }),
  LINKLINE_PAGE_TITLES: text({
    group: 'Outbound requests',
    default: 'on',
    meaning:
      '`off`: a link created without a title keeps none, and no request goes to its destination (privacy, networks without egress); ' +
      '`on`: the title is read from the destination page in the background',
    scaleOut: 'each instance fetches the titles of the links it creates: at most 4 at once, 1000 waiting',
  }),
  LINKLINE_HEALTH_INTERVAL_HOURS: int({
    group: 'Outbound requests',
    default: 24,
    min: 0,
    max: 8760,
    meaning:
      "how often every live link's destination is checked (HEAD, GET when refused; docs/api/link-care.md#destination-health), " +
      "in a thread of its own; `0` turns the checks off (the API's check-now still works)",
    scaleOut: 'one instance at a time checks (a lease row in the database); the others take over when it stops',
  }),
  LINKLINE_HEALTH_CONCURRENCY: int({ group: 'Outbound requests', default: 4, min: 1, max: 64, meaning: 'destination checks at once (one host: one a second)' }),
  LINKLINE_WEBHOOKS_ALLOW_PRIVATE: flag({
    group: 'Outbound requests',
    meaning: 'the former name of `LINKLINE_FETCH_ALLOW_PRIVATE`, still accepted: `true` there is `true` here',
  }),
  ...WEBHOOK_SETTINGS,
} as const satisfies Record<string, Setting>

export type SettingName = keyof typeof SETTINGS
type NamesOf<Kind extends Setting['kind']> = { [N in SettingName]: (typeof SETTINGS)[N]['kind'] extends Kind ? N : never }[SettingName]
export type IntName = NamesOf<'int'>
export type TextName = NamesOf<'text'>
export type FlagName = NamesOf<'flag'>
