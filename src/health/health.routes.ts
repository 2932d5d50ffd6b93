import { principalOf } from '../http/auth.js'
import type { App } from '../http/types.js'
import { LinkEnvelope, LinkIdParams } from '../links/links.schemas.js'
import { errorResponses } from '../shared/schema.js'
import type { HealthFeature } from './health.wiring.js'

export function healthRoutes(app: App, { health }: { health: Pick<HealthFeature, 'checkNow'> }): void {
  app.post(
    '/v1/links/:id/check',
    {
      config: { scope: 'links:write' },
      schema: {
        tags: ['links'],
        security: [{ bearer: [] }],
        summary: "Check the link's destination now; answers the link with its new health",
        params: LinkIdParams,
        response: { 200: LinkEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await health.checkNow(principalOf(req), req.params.id) }),
  )
}
