import { resourceFirst } from '../http/resource-first.js'
import type { App } from '../http/types.js'
import { LinkIdParams } from '../links/links.schemas.js'
import type { LinksService } from '../links/links.service.js'
import { replyStatistics, statisticsResponses } from './stats.csv.js'
import { StatsEnvelope, StatsQuery } from './stats.schemas.js'
import type { StatsService } from './stats.service.js'

/**
 * How long a public answer may be kept by browsers and shared caches: no longer than the statistics
 * themselves take to catch up with a visit (docs/api/analytics.md#public-statistics).
 */
export const PUBLIC_STATS_MAX_AGE_S = 15

/**
 * The statistics of links whose owner made them public, for anyone: no token, no session (the auth
 * hook leaves `/v1/public/` open), each answer counted against the caller's anonymous budget.
 */
export function publicStatsRoutes(app: App, { stats, links }: { stats: StatsService; links: LinksService }): void {
  app.get(
    '/v1/public/links/:id/stats',
    {
      config: { anonymousBudget: true },
      schema: {
        tags: ['links'],
        security: [],
        summary: "A link's statistics when its owner made them public (publicStats): as the owner's, without referrer hosts beyond the top 10; else 404",
        description:
          'No token needed. Answers only for a link whose owner set `publicStats: true`; any other id, known or not, is the same 404. Cached for 15 seconds and counted against the anonymous rate limit.',
        params: LinkIdParams,
        querystring: StatsQuery,
        response: statisticsResponses(StatsEnvelope, "The link's public statistics"),
      },
      preValidation: resourceFirst((_req, id) => links.getPublic(id)),
    },
    async (req, reply) => {
      const data = await stats.getPublic(req.params.id, req.query)
      reply.header('Cache-Control', `public, max-age=${PUBLIC_STATS_MAX_AGE_S}`)
      return replyStatistics(reply, req.query.format, data, `stats-${data.linkId}-${data.from.slice(0, 10)}`)
    },
  )
}
