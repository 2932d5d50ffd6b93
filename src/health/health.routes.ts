import { principalOf } from '../http/auth.js'
import type { App } from '../http/types.js'
import { LinkEnvelope, LinkIdParams } from '../links/links.schemas.js'
import { errorResponses } from '../shared/schema.js'
import type { HealthFeature } from './health.wiring.js'

export function healthRoutes(app: App, { health }: { health: Pick<HealthFeature, 'checkNow'> }): void {
  app.post(
    '/v1/links/:id/check',
    {
      config: { scope: 'links:write', audit: { skip: 'a check changes no setting of the link; its verdict is on the link, and link.broken tells of a turn' } },
      schema: {
        tags: ['links'],
        security: [{ bearer: [] }],
        summary: "Check the link's destination now; answers the link with its new health",
        description:
          "Sends `HEAD` (then `GET` when HEAD is refused) to the destination now, as the background checks do, and records the verdict: `health.status` turns `ok` after a success and `broken` after the second failure in a row (then `link.broken` is sent). Answers 200 with the link whatever the verdict; a failure is in `health.error`. Another workspace's link is 404, as an unknown one.",
        params: LinkIdParams,
        response: { 200: LinkEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await health.checkNow(principalOf(req), req.params.id) }),
  )
}
