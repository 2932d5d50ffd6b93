import { resourceFirst } from '../http/resource-first.js'
import type { App } from '../http/types.js'
import { LinkIdParams } from '../links/links.schemas.js'
import type { LinksService } from '../links/links.service.js'
import { errorResponses } from '../shared/schema.js'
import type { StatsService } from '../stats/stats.service.js'
import { CLICK_COLUMNS, clickRecord, CONTENT_TYPES, encode, LINK_CSV_COLUMNS } from './porting.format.js'
import { ExportClicksQuery, ExportLinksQuery, exportResponses } from './porting.schemas.js'
import { principalOf } from '../http/auth.js'

const tags = ['links']
const security = [{ bearer: [] }]

async function* map<T, U>(source: AsyncIterable<T>, f: (t: T) => U): AsyncGenerator<U> {
  for await (const item of source) yield f(item)
}

export function portingRoutes(app: App, { links, stats }: { links: LinksService; stats: StatsService }): void {
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
