#!/usr/bin/env node
import '../shared/runtime-check.js'
import { ConfigError, loadConfig } from '../config.js'
import { VERSION } from '../shared/version.js'
import { CliError, type Command } from './command.js'

// Only the command named is loaded: `linkline --help` or `linkline tokens --help` answers without
// loading the whole service (over a second on a small machine).
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.command.js')).serveCommand,
  migrate: async () => (await import('./migrate.command.js')).migrateCommand,
  tokens: async () => (await import('./tokens.command.js')).tokensCommand,
  users: async () => (await import('./users.command.js')).usersCommand,
  domains: async () => (await import('./domains.command.js')).domainsCommand,
  links: async () => (await import('./links.command.js')).linksCommand,
  backup: async () => (await import('./backup.command.js')).backupCommand,
}

const USAGE = `Usage: linkline <command> [options]

Commands:
  serve                 start the HTTP server (the same as npm start)
  migrate               apply pending database migrations and exit
  tokens create|list|revoke
                        manage API tokens
  users create|list|remove|reset-password
                        manage the people who sign in to the dashboard
  links import|export   import links from a file (CSV, Bitly, Shlink, Kutt, YOURLS), export them to stdout
  backup <file>         copy the SQLite database, consistently, while the server runs
  domains rename <old> <new>
                        move every link of one domain to another (after a change of LINKLINE_DOMAINS)

Run "linkline <command> --help" for a command's options, "linkline --version" for the version. Configuration comes from the
environment (DATABASE_URL, PORT, ...; see the README).`

/** The `linkline` command: a thin adapter over the same container and services as the HTTP server. */
async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`)
    return name === undefined ? 2 : 0
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`linkline ${VERSION}\n`)
    return 0
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (!load) throw new CliError(`unknown command "${name}"\n\n${USAGE}`)
  const command = await load()
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.help}\n`)
    return 0
  }
  // An option left out (undefined) must not hide the environment's value.
  return command.run(rest, (overrides = {}) =>
    loadConfig({ ...process.env, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) }),
  )
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    const known = error instanceof CliError || error instanceof ConfigError
    process.stderr.write(`linkline: ${known || error instanceof Error ? (error as Error).message : String(error)}\n`)
    process.exitCode = known ? 2 : 1
  },
)
