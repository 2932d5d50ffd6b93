import { CliError, parseCommandArgs, type Command } from './command.js'

const HELP = `Usage: linkline serve [--port <port>] [--host <address>]

Starts the HTTP server: migrates the database, ensures the bootstrap token, listens on HOST:PORT.
--port and --host override PORT and HOST. Stops gracefully on SIGTERM or SIGINT.`

export const serveCommand: Command = {
  help: HELP,
  async run(args, config) {
    const { values, positionals } = parseCommandArgs(args, { port: { type: 'string' }, host: { type: 'string' } }, HELP)
    if (positionals.length > 0) throw new CliError(`serve takes no arguments, got "${positionals.join(' ')}"\n\n${HELP}`)
    const settings = config({ PORT: values.port, HOST: values.host })
    const { serve } = await import('../main.js')
    await serve(settings)
    // The server keeps the process alive; the signal handlers decide the exit code.
    return new Promise<number>(() => {})
  },
}
