import './shared/runtime-check.js'
import './shared/serving-heap.js'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { buildApp } from './app.js'
import { loadConfig, type Config } from './config.js'
import { createContainer, type Container } from './container.js'
import { configuredPublicUrl } from './http/public-url.js'
import { settleNextTick } from './http/settle-next-tick.js'
import { withDatabaseContext, redactPassword } from './storage/database-context.js'
import { isDatabaseUnavailable } from './storage/errors.js'
import { VERSION } from './shared/version.js'

/**
 * What a first start tells its operator, framed: the first API token (shown once), and a one-time link
 * that creates the first owner of the bootstrap workspace while it has no member.
 */
function firstStartNotice(owner: string, dashboard: string, token: string | undefined, setupUrl: string | undefined): string {
  const rule = '='.repeat(76)
  const tokenPart =
    token === undefined
      ? []
      : [
          `Linkline created your first API token (owner "${owner}", every scope).`,
          'It is shown only this once; only its hash is stored:',
          '',
          `    ${token}`,
          '',
          `Sign in to the dashboard (${dashboard}) with it. More tokens: npx linkline tokens create --owner ${owner}`,
        ]
  const setupPart =
    setupUrl === undefined
      ? []
      : [
          `Workspace "${owner}" has no owner yet. Open this link to create its first owner`,
          '(a person who signs in with an email and password); it works once, for 24 hours:',
          '',
          `    ${setupUrl}`,
          '',
          `Or from a shell: npx linkline users create --email <email> --workspace ${owner} --role owner`,
        ]
  return ['', rule, ...tokenPart, ...(tokenPart.length > 0 && setupPart.length > 0 ? [''] : []), ...setupPart, rule, '', ''].join('\n')
}

/** Runs `work`; if it fails, closes `resource` (the click writer thread, connections) so that the process can exit. */
async function startOrClose<T>(resource: { close(): Promise<unknown> }, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    await resource.close().catch(() => {})
    throw error
  }
}

/**
 * Starts the container, waiting up to `timeoutMs` for a database that does not answer yet: services
 * started together (compose, a reboot) bring PostgreSQL up a few seconds after Linkline. Any other
 * failure, or one that outlasts the wait, ends the start.
 */
async function startWhenTheDatabaseAnswers(container: Container, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (let pause = 250; ; pause = Math.min(2 * pause, 2000)) {
    try {
      return await container.start()
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() + pause > deadline) throw error
      container.logger.warn(
        `the database does not answer yet (${error instanceof Error ? error.message : String(error)}); retrying until DATABASE_START_TIMEOUT_MS`,
      )
      await sleep(pause)
    }
  }
}

/** A listen failure that says which settings choose the address: Node's own names only the address. */
function listenError(error: unknown, config: Pick<Config, 'port' | 'host'>): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  const address = `${config.host}:${config.port}`
  if (code === 'EADDRINUSE')
    return new Error(`${address} is already in use by another process (EADDRINUSE): stop it, or set PORT or HOST (--port, --host)`, { cause: error })
  if (code === 'EACCES')
    return new Error(`${address} may not be listened on by this user (EACCES): ports below 1024 need privileges; set PORT (--port)`, { cause: error })
  if (code === 'EADDRNOTAVAIL') return new Error(`${config.host} is not an address of this machine (EADDRNOTAVAIL): set HOST (--host)`, { cause: error })
  return error
}

/** Left of the shutdown timeout for closing connections once the click store has had its chance. */
const SHUTDOWN_MARGIN_MS = 1000

/**
 * Starts the server: configuration → container → migrations → app → listen, and shuts down
 * gracefully on SIGTERM/SIGINT (stop accepting, drain, flush clicks, close the database, exit 0).
 * A second signal while shutting down changes nothing.
 */
export async function serve(config: Config): Promise<void> {
  await settleNextTick()
  const container = await withDatabaseContext(config, () => createContainer(config))
  await startOrClose(container, async () => container.storage.claimServer())
  // The last fault boundary: whatever escaped every other one is logged and counted, and the process
  // keeps serving (docs/operations.md, "Fault boundary").
  process.on('uncaughtException', (error) => container.faults.report('uncaught_exception', error))
  process.on('unhandledRejection', (reason) => container.faults.report('unhandled_rejection', reason))
  const app = await startOrClose(container, async () => {
    await withDatabaseContext(config, () => startWhenTheDatabaseAnswers(container, config.databaseStartTimeoutMs))
    if (config.bootstrapToken !== undefined) await container.tokens.ensure(config.bootstrapToken, config.bootstrapOwner)
    for (const { domain, links } of await container.links.strandedDomains()) {
      container.logger.warn(
        { domain, links },
        `${links} link(s) use the domain ${domain}, which is neither in LINKLINE_DOMAINS nor a custom domain: they answer 404. ` +
          `Move them with: linkline domains rename ${domain} ${config.domains[0]}`,
      )
    }
    const started = await buildApp(container)
    await startOrClose(started, () =>
      started.listen({ port: config.port, host: config.host }).catch((error: unknown) => Promise.reject(listenError(error, config))),
    )
    return started
  })
  // Before any more awaited work: /healthz answers from here on, and a SIGTERM must find its handler.
  let shuttingDown = false
  const shutdown = (signal: string) => {
    if (shuttingDown) return
    shuttingDown = true
    app.log.info({ signal }, 'shutting down')
    const force = setTimeout(() => {
      const unwritten = container.clicks.unwritten
      app.log.error({ dropped: unwritten }, `shutdown timed out; exiting with ${unwritten} buffered visits unwritten`)
      process.exit(1)
    }, config.shutdownTimeoutMs).unref()
    const deadline = Date.now() + config.shutdownTimeoutMs - SHUTDOWN_MARGIN_MS
    app
      .close()
      .then(() => container.close(deadline))
      .then((dropped) => {
        clearTimeout(force)
        if (dropped > 0) {
          app.log.error({ dropped }, `shut down, but ${dropped} buffered visits could not be written`)
          process.exit(1)
        }
        app.log.info('shut down cleanly')
        process.exit(0)
      })
      .catch((error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed')
        process.exit(1)
      })
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
  // Only once listening: a start that fails (a port in use) must not use up the one showing of the token.
  const firstToken =
    config.bootstrapToken === undefined && !(await container.tokens.hasAny())
      ? (await container.tokens.create({ ownerId: config.bootstrapOwner, name: 'first' })).token
      : undefined
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${(app.server.address() as AddressInfo).port}`
  container.logger.info(
    { version: VERSION, url, database: redactPassword(config.databaseUrl), domains: config.domains },
    `Linkline ${VERSION} serving ${config.domains.join(', ')} at ${url} (dashboard: ${url}/app/, API reference: ${url}/docs)` +
      (firstToken === undefined ? `; more API tokens: npx linkline tokens create --owner ${config.bootstrapOwner}` : ''),
  )
  // Each start while the bootstrap workspace has no member prints a new link; whichever is used first spends the others.
  const setupUrl = (await container.setup.needed(config.bootstrapOwner))
    ? (await container.setup.issue(config.bootstrapOwner, configuredPublicUrl(config) ?? url)).url
    : undefined
  // On stderr, framed, so that it stands out of the JSON log lines and is not mixed into them.
  if (firstToken !== undefined || setupUrl !== undefined) {
    process.stderr.write(firstStartNotice(config.bootstrapOwner, `${url}/app/`, firstToken, setupUrl))
  }
}

export async function runServer(): Promise<void> {
  try {
    await serve(loadConfig())
  } catch (error) {
    process.stderr.write(`linkline: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runServer()
