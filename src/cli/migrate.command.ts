import { migrateToLatest } from '../storage/migrate.js'
import { withDatabaseContext } from '../storage/database-context.js'
import { CliError, createCliContainer, parseCommandArgs, type Command } from './command.js'

const HELP = `Usage: linkline migrate

Applies every pending migration to DATABASE_URL and prints the names of those it applied.`

export const migrateCommand: Command = {
  help: HELP,
  async run(args, config) {
    if (parseCommandArgs(args, {}, HELP).positionals.length > 0) throw new CliError(`migrate takes no arguments\n\n${HELP}`)
    const settings = config()
    const container = await withDatabaseContext(settings, () => createCliContainer(settings))
    try {
      const applied = await withDatabaseContext(settings, () => migrateToLatest(container.storage))
      process.stdout.write(applied.length === 0 ? 'database is up to date\n' : `applied: ${applied.join(', ')}\n`)
      return 0
    } finally {
      await container.close()
    }
  },
}
