import { principalOf } from '../http/auth.js'
import type { App } from '../http/types.js'
import { errorResponses } from '../shared/schema.js'
import { MissingPathsEnvelope, MissingPathsQuery } from './missing-paths.schemas.js'
import type { MissingPathsService } from './missing-paths.service.js'

export function missingPathsRoutes(app: App, { missingPaths }: { missingPaths: MissingPathsService }): void {
  app.get(
    '/v1/stats/not-found',
    {
      config: { scope: 'links:read' },
      schema: {
        tags: ['links'],
        security: [{ bearer: [] }],
        summary:
          'The 50 most visited paths that name no link on your verified domains (the bootstrap workspace: the default domains too), human visits per path',
        description:
          "Counts people's visits (bots left out) to paths that match no link, per domain and path, over `from`–`to`: typos on printed material, links deleted too early. Each instance keeps at most 10,000 paths an hour; the rest are counted as `(other)`.",
        querystring: MissingPathsQuery,
        response: { 200: MissingPathsEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await missingPaths.top(principalOf(req), req.query) }),
  )
}
