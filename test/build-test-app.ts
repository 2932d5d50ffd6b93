import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { buildApp } from '../src/app.js'
import { loadConfig, type Env } from '../src/config.js'
import { createContainer, type Container, type ContainerOptions } from '../src/container.js'
import type { App } from '../src/http/types.js'
import type { Scope } from '../src/tokens/tokens.service.js'
import type { Backend } from './backends.js'
import { send, type RequestOptions, type Response } from './http-client.js'

export interface TestServer {
  readonly url: string
  /** The `host:port` the server listens on: its first default domain. */
  readonly host: string
  /** A token of owner `alice` with every scope. */
  readonly token: string
  readonly container: Container
  readonly app: App
  readonly env: Env
  request(method: string, path: string, options?: RequestOptions): Promise<Response>
  createToken(ownerId: string, scopes?: Scope[]): Promise<string>
  close(): Promise<void>
}

/**
 * Starts the real server (the same buildApp and container as production) on an ephemeral port over
 * a database of its own, and talks HTTP to it. `env` overrides configuration; `container` passes
 * options to the container (a clock, a wrapped click sink).
 */
export async function startTestServer(
  options: { backend?: Backend; env?: Env; databaseUrl?: string; container?: ContainerOptions } = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-test-'))
  const databaseUrl = options.databaseUrl ?? `sqlite:${join(dir, 'linkline.db')}`
  // The port must be known before the configuration (default domain = localhost:<port>): take a free one.
  const port = await freePort()
  const env: Env = { PORT: String(port), DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ...options.env }
  const config = loadConfig(env)
  const container = createContainer(config, options.container)
  await container.start()
  const app = await buildApp(container)
  await app.listen({ port, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${port}`
  const createToken = async (ownerId: string, scopes?: Scope[]) => (await container.tokens.create({ ownerId, scopes })).token
  const token = await createToken('alice')
  let closed = false
  return {
    url,
    host: `localhost:${port}`,
    token,
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
      if (!options.databaseUrl) rmSync(dir, { recursive: true, force: true })
    },
  }
}

export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net')
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}
