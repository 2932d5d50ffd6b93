import { BackupError, backupDatabase } from '../ops/backup.js'
import { CliError, parseCommandArgs, type Command } from './command.js'

const HELP = `Usage: linkline backup <file>

Copies the SQLite database of DATABASE_URL to <file> (a new file), consistently, while the server
runs. To restore: stop the server, remove the database file and its -wal and -shm files, copy the
backup in its place, start the server. For PostgreSQL, use pg_dump (docs/operations.md).`

export const backupCommand: Command = {
  help: HELP,
  async run(args, config) {
    const { positionals } = parseCommandArgs(args, {}, HELP)
    if (positionals.length !== 1) throw new CliError(`backup needs exactly one <file>\n\n${HELP}`)
    const file = positionals[0] as string
    try {
      await backupDatabase(config().databaseUrl, file)
    } catch (error) {
      if (error instanceof BackupError) throw new CliError(error.message)
      throw error
    }
    process.stdout.write(`backed up to ${file}\n`)
    return 0
  },
}
