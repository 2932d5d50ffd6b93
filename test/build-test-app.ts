import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../src/app.js'
import { loadConfig, type Env } from '../src/config.js'
import { createContainer, type Container, type ContainerOptions } from '../src/container.js'
import type { App } from '../src/http/types.js'
import type { Resolve } from '../src/outbound/resolve.js'
import type { Scope } from '../src/tokens/tokens.service.js'
import type { Backend } from './backends.js'
import { freePort } from './free-port.js'
import { createPostgresSchema } from './postgres-schema.js'
import { send, type RequestOptions, type Response } from './http-client.js'

export interface TestServer {
  readonly url: string
  /** The `host:port` the server listens on: its first default domain. */
  readonly host: string
  /** A token of owner `alice` with every scope. */
  readonly token: string
  /** Who a token made by `createToken` (or `token`) is in `createdBy`: its id, and its prefix as label (it has no name). */
  actorOf(token: string): { type: 'token'; id: string; label: string }
  readonly container: Container
  readonly app: App
  readonly env: Env
  request(method: string, path: string, options?: RequestOptions): Promise<Response>
  createToken(ownerId: string, scopes?: Scope[]): Promise<string>
  close(): Promise<void>
}

export interface TestDatabase {
  /** DATABASE_URL (and REDIS_URL / LINKLINE_REDIS_PREFIX for PostgreSQL when TEST_REDIS_URL is set). */
  readonly env: Env
  drop(): Promise<void>
}

/**
 * A database of its own: a SQLite file in a temporary folder, or a fresh schema on
 * TEST_DATABASE_URL (reached through `search_path`) with a Redis key prefix of its own on
 * TEST_REDIS_URL, so that parallel servers share neither rows, rate-limit counters nor channels.
 */
export async function createTestDatabase(backend: Backend = 'sqlite'): Promise<TestDatabase> {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'linkline-test-'))
    return { env: { DATABASE_URL: `sqlite:${join(dir, 'linkline.db')}` }, drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  const adminUrl = process.env.TEST_DATABASE_URL
  if (!adminUrl) throw new Error('the postgres backend needs TEST_DATABASE_URL')
  const schema = await createPostgresSchema(adminUrl, 't')
  const redisUrl = process.env.TEST_REDIS_URL
  return {
    env: {
      DATABASE_URL: schema.url,
      LINKLINE_DATA_DIR: schema.dataDir,
      ...(redisUrl ? { REDIS_URL: redisUrl, LINKLINE_REDIS_PREFIX: `linkline-test:${schema.name}:` } : {}),
    },
    drop: schema.drop,
  }
}

/**
 * How test servers resolve the host names of their outbound requests (page titles, webhooks) unless a
 * test brings its own: loopback names only, and never through DNS, so that no test sends traffic beyond
 * loopback (destinations such as https://shop.example/ fail as names that do not exist).
 */
export const loopbackResolve: Resolve = async (host) => {
  if (host === 'localhost' || host.endsWith('.localhost')) return [{ address: '127.0.0.1', family: 4 }]
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host} (test servers resolve loopback names only)`), { code: 'ENOTFOUND' })
}

/**
 * Starts the real server (the same buildApp and container as production) on an ephemeral port over
 * a database of its own (or the one `database` / `databaseUrl` names, left in place), and talks HTTP to it.
 * `env` overrides configuration; `container` passes options to the container (a clock, a wrapped click sink).
 */
export async function startTestServer(
  options: { backend?: Backend; env?: Env; database?: TestDatabase; databaseUrl?: string; container?: ContainerOptions } = {},
): Promise<TestServer> {
  const database =
    options.database ??
    (options.databaseUrl === undefined ? await createTestDatabase(options.backend) : { env: { DATABASE_URL: options.databaseUrl }, drop: async () => {} })
  // The port must be known before the configuration (default domain = localhost:<port>): take a free one.
  const port = await freePort()
  // No background destination checks unless a test asks: their thread resolves names through DNS (loopbackResolve cannot reach it).
  const env: Env = { PORT: String(port), LOG_LEVEL: 'silent', LINKLINE_HEALTH_INTERVAL_HOURS: '0', ...database.env, ...options.env }
  const config = loadConfig(env)
  // Sign-ins unpaced (2 a second in production): the tests sign people in one after another, and
  // each would otherwise wait half a second for the one before.
  const container = createContainer(config, { outboundResolve: loopbackResolve, signInHashIntervalMs: 0, ...options.container })
  const app = await (async () => {
    try {
      await container.start()
      const built = await buildApp(container)
      await built.listen({ port, host: '127.0.0.1' })
      return built
    } catch (error) {
      // The container holds connections and a writer thread from its construction on: a start that
      // fails must release them, or the test file's process never ends.
      await container.close().catch(() => {})
      if (database !== options.database) await database.drop().catch(() => {})
      throw error
    }
  })()
  const url = `http://127.0.0.1:${port}`
  const tokenIds = new Map<string, string>()
  const createToken = async (ownerId: string, scopes?: Scope[]) => {
    const { id, token } = await container.tokens.create({ ownerId, scopes })
    tokenIds.set(token, id)
    return token
  }
  const token = await createToken('alice')
  let closed = false
  return {
    url,
    host: `localhost:${port}`,
    token,
    actorOf: (made) => {
      const id = tokenIds.get(made)
      if (id === undefined) throw new Error('actorOf: not a token of createToken')
      return { type: 'token', id, label: `${made.slice(0, 9)}…` }
    },
    container,
    app,
    env,
    createToken,
    request: (method, path, requestOptions = {}) =>
      send(url, method, path, { token: token, ...requestOptions, headers: { host: `localhost:${port}`, ...requestOptions.headers } }),
    async close() {
      if (closed) return
      closed = true
      await app.close()
      await container.close()
      if (database !== options.database) await database.drop()
    },
  }
}
