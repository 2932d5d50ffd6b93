import { AppError } from '../shared/errors.js'
import { CliError, parseCommandArgs, withContainer, type Command } from './command.js'

const HELP = `Usage:
  linkline domains rename <old> <new> [--dry-run]
      Moves every link of domain <old> (every owner's) to <new>, one of LINKLINE_DOMAINS, in one
      transaction. Nothing moves when a path of <old> is already taken on <new>: the paths in the way
      are listed. --dry-run says how many links would move, and changes nothing.
      The start log warns about domains whose links no longer resolve (after a change of
      LINKLINE_DOMAINS or PORT). With Redis, running servers hear of the move at once. Without it, a
      running server serves the moved paths on <new> within 5 seconds (its cached 404s expire), but
      keeps redirecting <old> paths it has cached until restarted.`

export const domainsCommand: Command = {
  help: HELP,
  async run(args, config) {
    const [verb, ...rest] = args
    if (verb !== 'rename') throw new CliError(`${verb === undefined ? 'domains needs a verb' : `unknown verb "${verb}"`}\n\n${HELP}`)
    const { values, positionals } = parseCommandArgs(rest, { 'dry-run': { type: 'boolean' } }, HELP)
    if (positionals.length !== 2) throw new CliError(`domains rename needs <old> and <new>\n\n${HELP}`)
    const [from, to] = positionals as [string, string]
    const dryRun = values['dry-run'] === true
    try {
      const r = await withContainer(config(), (c) => c.links.moveDomain(from, to, { dryRun }), { redis: !dryRun })
      process.stdout.write(`${dryRun ? 'would move' : 'moved'} ${r.moved} link(s) from ${r.from} to ${r.to}\n`)
      return 0
    } catch (error) {
      // The service's refusals (bad names, paths in the way) are the operator's to fix, not crashes.
      if (!(error instanceof AppError)) throw error
      process.stderr.write(`linkline: ${error.message}\n`)
      return 1
    }
  },
}
