import { resourceFirst } from '../http/resource-first.js'
import type { App } from '../http/types.js'
import { LinkIdParams } from '../links/links.schemas.js'
import type { LinksService } from '../links/links.service.js'
import { errorResponses } from '../shared/schema.js'
import { StatsEnvelope, StatsQuery } from './stats.schemas.js'
import type { StatsService } from './stats.service.js'
import { principalOf } from '../http/auth.js'

export function statsRoutes(app: App, { stats, links }: { stats: StatsService; links: LinksService }): void {
  app.get(
    '/v1/links/:id/stats',
    {
      config: { scope: 'links:read' },
      schema: {
        tags: ['links'],
        security: [{ bearer: [] }],
        summary: "A link's click statistics: totals, time series and top-10 breakdowns, from hourly rollups",
        params: LinkIdParams,
        querystring: StatsQuery,
        response: { 200: StatsEnvelope, ...errorResponses },
      },
      preValidation: resourceFirst((req, id) => links.get(principalOf(req), id)),
    },
    async (req) => ({ success: true as const, data: await stats.get(principalOf(req), req.params.id, req.query) }),
  )
}
