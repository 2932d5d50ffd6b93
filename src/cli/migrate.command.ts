import { migrateToLatest } from '../storage/migrate.js'
import { createCliContainer, type Command } from './command.js'

export const migrateCommand: Command = {
  help: `Usage: linkline migrate

Applies every pending migration to DATABASE_URL and prints the names of those it applied.`,
  async run(_args, config) {
    const container = createCliContainer(config())
    try {
      const applied = await migrateToLatest(container.storage)
      process.stdout.write(applied.length === 0 ? 'database is up to date\n' : `applied: ${applied.join(', ')}\n`)
      return 0
    } finally {
      await container.close()
    }
  },
}
