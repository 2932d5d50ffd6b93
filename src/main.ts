import { pathToFileURL } from 'node:url'
import { buildApp } from './app.js'
import { loadConfig, type Config } from './config.js'
import { createContainer } from './container.js'

/**
 * Starts the server: configuration → container → migrations → app → listen, and shuts down
 * gracefully on SIGTERM/SIGINT (stop accepting, drain, flush clicks, close the database, exit 0).
 * A second signal while shutting down changes nothing.
 */
export async function serve(config: Config): Promise<void> {
  const container = createContainer(config)
  // The last fault boundary: whatever escaped every other one is logged and counted, and the process
  // keeps serving (docs/operations.md, "Fault boundary").
  process.on('uncaughtException', (error) => container.faults.report('uncaught_exception', error))
  process.on('unhandledRejection', (reason) => container.faults.report('unhandled_rejection', reason))
  await container.start()
  for (const { domain, links } of await container.links.strandedDomains()) {
    container.logger.warn(
      { domain, links },
      `${links} link(s) use the domain ${domain}, which is neither in LINKLINE_DOMAINS nor a custom domain: they answer 404. ` +
        `Move them with: linkline domains rename ${domain} ${config.domains[0]}`,
    )
  }
  if (config.bootstrapToken !== undefined) {
    await container.tokens.ensure(config.bootstrapToken, config.bootstrapOwner)
  } else if (!(await container.tokens.hasAny())) {
    const { token } = await container.tokens.create({ ownerId: config.bootstrapOwner, name: 'first' })
    process.stdout.write(
      `\nLinkline created your first API token (owner "${config.bootstrapOwner}", all scopes). It is shown only once:\n\n  ${token}\n\n`,
    )
  }
  const app = await buildApp(container)
  await app.listen({ port: config.port, host: config.host })

  let shuttingDown = false
  const shutdown = (signal: string) => {
    if (shuttingDown) return
    shuttingDown = true
    app.log.info({ signal }, 'shutting down')
    const force = setTimeout(() => {
      app.log.error('shutdown timed out; exiting')
      process.exit(1)
    }, config.shutdownTimeoutMs).unref()
    app
      .close()
      .then(() => container.close())
      .then(() => {
        clearTimeout(force)
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
