import { resourceFirst } from '../http/resource-first.js'
import type { App } from '../http/types.js'
import { LinkIdParams } from '../links/links.schemas.js'
import type { LinksService } from '../links/links.service.js'
import { OverviewEnvelope, OverviewQuery } from './overview.schemas.js'
import { replyStatistics, statisticsResponses } from './stats.csv.js'
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
        description:
          'Day and month buckets, and from/to given as dates, are in the time zone `tz`. With `format=csv`, the same as a CSV download: ' +
          '`section,value,clicks` rows (totals, then each breakdown), then `timeseries,<start>,<clicks>` rows.',
        params: LinkIdParams,
        querystring: StatsQuery,
        response: statisticsResponses(StatsEnvelope, "The link's statistics"),
      },
      preValidation: resourceFirst((req, id) => links.get(principalOf(req), id)),
    },
    async (req, reply) => {
      const data = await stats.get(principalOf(req), req.params.id, req.query)
      return replyStatistics(reply, req.query.format, data, `stats-${data.linkId}-${data.from.slice(0, 10)}`)
    },
  )

  app.get(
    '/v1/stats',
    {
      config: { scope: 'links:read' },
      schema: {
        tags: ['links'],
        security: [{ bearer: [] }],
        summary: 'Statistics of your links together (all, or those of a domain, tags or ids), with the 10 most clicked',
        description:
          "The link statistics' shape for every matching live link of yours together, plus `topLinks`. Filters combine: `domain`, `tag` " +
          '(may repeat: links carrying every tag), `linkId` (may repeat, up to 100). An id or domain that is not yours matches nothing. ' +
          'uniqueVisitors is the sum over the links (a visitor of two links counts twice). Hours are not split: in a zone whose midnights ' +
          'fall within an hour (Asia/Kolkata), each hour counts in the bucket holding its start. `format=csv` as for one link, with `topLinks` rows.',
        querystring: OverviewQuery,
        response: statisticsResponses(OverviewEnvelope, 'The statistics of the matching links together'),
      },
    },
    async (req, reply) => {
      const data = await stats.overview(principalOf(req), req.query)
      return replyStatistics(reply, req.query.format, data, `stats-overview-${data.from.slice(0, 10)}`)
    },
  )
}
