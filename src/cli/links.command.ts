import { statSync } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { SingleBar } from 'cli-progress'
import { encode, EXPORT_FORMATS, LINK_CSV_COLUMNS, type ExportFormat } from '../porting/porting.format.js'
import { IMPORT_FORMATS, ImportFileError, openImport, type ImportFormat } from '../porting/porting.import.js'
import type { ImportSummary } from '../porting/porting.service.js'
import { SCOPES, type Principal } from '../tokens/tokens.service.js'
import { CliError, parseCommandArgs, withContainer, type Command } from './command.js'

const HELP = `Usage:
  linkline links import <file> --owner <ownerId> [--format ${IMPORT_FORMATS.join('|')}] [--dry-run] [--json]
      Creates the owner's links from a file, through the same checks as the API. Without --format,
      the format is told from the file's header:
        csv     destination,path,domain,title,tags (a header row; only destination is required;
                tags separated by | or ,). Linkline's own CSV export reads back as this, with
                every setting (redirect type, expiry, click limit, rules, password).
        ndjson  Linkline's own NDJSON export
        bitly   Bitly's link export (Link, Custom Link, Destination URL, Title, Tags)
        shlink  Shlink's short URL export (shortCode, domain, longUrl, title, tags)
        kutt    the JSON of Kutt's GET /api/v2/links ({"data": [...]})
        yourls  YOURLS' links table as CSV (keyword, url, title, ...)
      Safe to run again: a link already there (same path, destination and title) is skipped; a path
      taken by another link is reported. Broken rows are listed with their line; the others import.
      Links of a domain that is not the owner's here go to the default domain, and the summary says so.
      Prints a summary; exits 1 when a row failed. --dry-run checks everything and writes nothing.
      A progress bar shows on a terminal. With Redis, running servers are told of each new link at
      once; without it, a server that answered 404 for an imported path keeps doing so for at most
      5 seconds (its cached 404s expire).
  linkline links export --owner <ownerId> [--format csv|ndjson]
      Writes every link of the owner to stdout, in the format of GET /v1/links/export.`

const parse = (args: string[], options: Parameters<typeof parseCommandArgs>[1]) => parseCommandArgs(args, options, HELP)

/** The CLI acts as the owner with every scope, as an operator. */
const ownerPrincipal = (value: unknown, verb: string): Principal => {
  if (typeof value !== 'string' || value === '') throw new CliError(`links ${verb} needs --owner <ownerId>\n\n${HELP}`)
  if (value.length > 128) throw new CliError('--owner must be at most 128 characters')
  return { ownerId: value, scopes: new Set(SCOPES), role: 'owner' }
}

function printSummary(summary: ImportSummary): void {
  const verb = summary.dryRun ? 'would create' : 'created'
  const lines = [`${verb} ${summary.created}, skipped ${summary.present} (already present), failed ${summary.failed.length}`]
  for (const m of summary.moved) lines.push(`  ${m.links} ${m.links === 1 ? 'link' : 'links'} of ${m.from} (not a domain of the owner here) on ${m.to}`)
  for (const f of summary.failed) lines.push(`  ${f.where}: ${f.reason}`)
  process.stdout.write(`${lines.join('\n')}\n`)
}

export const linksCommand: Command = {
  help: HELP,
  async run(args, config) {
    const [verb, ...rest] = args
    switch (verb) {
      case 'import': {
        const { values, positionals } = parse(rest, {
          owner: { type: 'string' },
          format: { type: 'string' },
          'dry-run': { type: 'boolean' },
          json: { type: 'boolean' },
        })
        const principal = ownerPrincipal(values.owner, 'import')
        if (positionals.length !== 1) throw new CliError(`links import needs one <file>\n\n${HELP}`)
        const file = positionals[0] as string
        const format = values.format as string | undefined
        if (format !== undefined && !(IMPORT_FORMATS as readonly string[]).includes(format))
          throw new CliError(`unknown format "${format}": use one of ${IMPORT_FORMATS.join(', ')}`)
        let size: number
        try {
          size = statSync(file).size
        } catch (error) {
          throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
        }
        // On a terminal only: a pipe or a log file gets the summary alone.
        const bar = process.stderr.isTTY
          ? new SingleBar({ stream: process.stderr, format: 'importing [{bar}] {percentage}% | {rows} rows', hideCursor: true, clearOnComplete: true })
          : undefined
        let rows = 0
        bar?.start(size, 0, { rows })
        try {
          const dryRun = values['dry-run'] === true
          const input = await openImport({ file }, format as ImportFormat | undefined, { onBytes: (bytes) => bar?.increment(bytes) })
          const summary = await withContainer(
            config(),
            (c) =>
              c.porting.importLinks(principal, input.rows, {
                dryRun,
                onRows: (n) => bar?.update({ rows: (rows += n) }),
              }),
            // Running servers hear of the new links through Redis, where there is one.
            { redis: !dryRun },
          )
          bar?.stop()
          if (values.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
          else printSummary(summary)
          return summary.failed.length > 0 ? 1 : 0
        } catch (error) {
          bar?.stop()
          if (error instanceof ImportFileError || (error as { code?: string }).code?.startsWith('CSV_'))
            throw new CliError(`${file}: ${(error as Error).message}`)
          throw error
        }
      }
      case 'export': {
        const { values, positionals } = parse(rest, { owner: { type: 'string' }, format: { type: 'string' } })
        const principal = ownerPrincipal(values.owner, 'export')
        if (positionals.length > 0) throw new CliError(`links export takes no file: it writes to stdout\n\n${HELP}`)
        const format = (values.format ?? 'csv') as string
        if (!(EXPORT_FORMATS as readonly string[]).includes(format)) throw new CliError(`unknown format "${format}": use one of ${EXPORT_FORMATS.join(', ')}`)
        await withContainer(config(), (c) => pipeline(encode(format as ExportFormat, LINK_CSV_COLUMNS, c.links.exportAll(principal)), process.stdout))
        return 0
      }
      default:
        throw new CliError(`${verb === undefined ? 'links needs a verb' : `unknown verb "${verb}"`}\n\n${HELP}`)
    }
  },
}
