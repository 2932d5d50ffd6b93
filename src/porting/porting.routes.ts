import { resourceFirst } from '../http/resource-first.js'
import type { App } from '../http/types.js'
import { LINK_CREATED } from '../links/link-writes.js'
import { LinkIdParams } from '../links/links.schemas.js'
import type { LinksService } from '../links/links.service.js'
import { errorResponses } from '../shared/schema.js'
import type { StatsService } from '../stats/stats.service.js'
import { invalidBody, validationError } from '../shared/errors.js'
import { CLICK_COLUMNS, clickRecord, CONTENT_TYPES, encode, LINK_CSV_COLUMNS } from './porting.format.js'
import { ImportFileError, openImport, type FormatOption } from './porting.import.js'
import {
  ExportClicksQuery,
  ExportLinksQuery,
  exportResponses,
  IMPORT_BODY_LIMIT,
  ImportEnvelope,
  ImportLinksBody,
  ImportLinksQuery,
  type ImportRowResult,
} from './porting.schemas.js'
import { rowNumber, type ImportRowOutcome, type PortingService } from './porting.service.js'
import { principalOf } from '../http/auth.js'

const tags = ['links']
const security = [{ bearer: [] }]

async function* map<T, U>(source: AsyncIterable<T>, f: (t: T) => U): AsyncGenerator<U> {
  for await (const item of source) yield f(item)
}

/** The content types an import file may come as; each is read as text, never parsed. */
const IMPORT_CONTENT_TYPES = ['text/csv', 'application/json', 'text/plain']

/** How the API names a format in its hints. */
const formatParam: FormatOption = (format) => (format === undefined ? 'the format parameter' : `format=${format}`)

function resultOf(outcome: ImportRowOutcome, dryRun: boolean): ImportRowResult {
  const line = rowNumber(outcome.where)
  if (outcome.status === 'failed') return { line, status: 'failed', path: outcome.path, error: outcome.error }
  // A link a dry run would create is not there: no object that names an id nobody can use.
  if (outcome.status === 'created' && dryRun) return { line, status: 'created', path: outcome.link.path === '' ? null : outcome.link.path }
  return { line, status: outcome.status === 'created' ? 'created' : 'skipped', path: outcome.link.path, link: outcome.link }
}

export function portingRoutes(app: App, { links, stats, porting }: { links: LinksService; stats: StatsService; porting: PortingService }): void {
  // Its own context: the import's body is a file's text, whatever the content type says, so that
  // JSON (a Kutt answer, NDJSON) reaches the importer unparsed.
  void app.register(async (scope: App) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser(IMPORT_CONTENT_TYPES, { parseAs: 'string' }, (_req, body, done) => done(null, body))
    scope.post(
      '/v1/links/import',
      {
        config: { scope: 'links:write', audit: LINK_CREATED },
        bodyLimit: IMPORT_BODY_LIMIT,
        schema: {
          tags,
          security,
          consumes: IMPORT_CONTENT_TYPES,
          summary: 'Import links from a file: Linkline CSV or NDJSON, Bitly, Shlink, Kutt or YOURLS; one result per row',
          description:
            "The body is the file's text (at most 5 MiB), as `linkline links import` reads it: the format is told from its start unless `format` names it. Each row is checked as `POST /v1/links` checks a body and stands alone: a bad row fails with its line and reason, the others import. Safe to send again: a row whose link is already there (same domain, path, destination and title) is skipped. `dryRun=true` runs every check and writes nothing. A file that is not of the format named, or whose format cannot be told, is 400 on `format`.",
          querystring: ImportLinksQuery,
          body: ImportLinksBody,
          response: { 200: ImportEnvelope, ...errorResponses },
        },
      },
      async (req) => {
        const dryRun = req.query.dryRun === true
        const outcomes: ImportRowOutcome[] = []
        try {
          const { format, rows } = await openImport({ bytes: Buffer.from(req.body, 'utf8') }, req.query.format, { option: formatParam })
          const summary = await porting.importLinks(principalOf(req), rows, { dryRun, onOutcome: (o) => outcomes.push(o) })
          const results = outcomes.map((o) => resultOf(o, dryRun)).sort((a, b) => a.line - b.line)
          return {
            success: true as const,
            data: { format, dryRun, created: summary.created, skipped: summary.present, failed: summary.failed.length, moved: summary.moved, results },
          }
        } catch (error) {
          if (error instanceof ImportFileError) throw error.concerns === 'format' ? validationError('format', error.message) : invalidBody(error.message)
          if ((error as { code?: string }).code?.startsWith('CSV_')) throw invalidBody(`the file cannot be read as CSV: ${(error as Error).message}`)
          throw error
        }
      },
    )
  })

  app.get(
    '/v1/links/export',
    {
      config: { scope: 'links:read' },
      schema: {
        tags,
        security,
        summary: "Export every link of yours (the list's filters apply), streamed as CSV or NDJSON",
        description:
          "Streams every link the filters select (`format=csv|ndjson`), without paging; CSV cells that a spreadsheet would run as a formula are prefixed with `'`. The result imports back with the import command.",
        querystring: ExportLinksQuery,
        response: { ...exportResponses("Every selected link, in the list's order"), ...errorResponses },
      },
    },
    async (req, reply) => {
      const format = req.query.format ?? 'csv'
      reply.type(CONTENT_TYPES[format]).header('Content-Disposition', `attachment; filename="links.${format}"`)
      // HEAD (which Fastify answers through this GET route) must not read every link only to drop them.
      if (req.method === 'HEAD') return reply.send()
      return reply.send(encode(format, LINK_CSV_COLUMNS, links.exportAll(principalOf(req), req.query.query ?? {})))
    },
  )

  app.get(
    '/v1/links/:id/clicks',
    {
      config: { scope: 'links:read' },
      preValidation: resourceFirst((req, id) => links.get(principalOf(req), id)),
      schema: {
        tags,
        security,
        summary: "A link's recorded visits within the retention period, oldest first, streamed as CSV or NDJSON (never an IP)",
        description:
          'One row per recorded visit between `from` and `to` within the retention period: time, referrer host, browser, OS, device, country, language, UTM fields, bot or human, QR scan. Addresses are never stored, so never exported.',
        params: LinkIdParams,
        querystring: ExportClicksQuery,
        response: { ...exportResponses('The visits'), ...errorResponses },
      },
    },
    async (req, reply) => {
      const format = req.query.format ?? 'csv'
      // Resolved before the first byte: a bad range is still a 400 in the error shape.
      const clicks = await stats.exportClicks(principalOf(req), req.params.id, req.query)
      reply.type(CONTENT_TYPES[format]).header('Content-Disposition', `attachment; filename="clicks.${format}"`)
      if (req.method === 'HEAD') return reply.send()
      return reply.send(encode(format, CLICK_COLUMNS, map(clicks, clickRecord)))
    },
  )
}
