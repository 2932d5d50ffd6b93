import { serve } from '../main.js'
import type { Command } from './command.js'

export const serveCommand: Command = {
  help: `Usage: linkline serve

Starts the HTTP server: migrates the database, ensures the bootstrap token, listens on HOST:PORT.
Stops gracefully on SIGTERM or SIGINT.`,
  async run(_args, config) {
    await serve(config())
    // The server keeps the process alive; the signal handlers decide the exit code.
    return new Promise<number>(() => {})
  },
}
