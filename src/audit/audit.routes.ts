import { principalOf } from '../http/auth.js'
import type { App } from '../http/types.js'
import { errorResponses } from '../shared/schema.js'
import { AuditLogEnvelope, ListAuditLogQuery } from './audit.schemas.js'
import type { AuditService } from './audit.service.js'

const security: Record<string, string[]>[] = [{ bearer: [] }, { session: [] }]

export function auditRoutes(app: App, { audit }: { audit: AuditService }): void {
  app.get(
    '/v1/audit-log',
    {
      config: { scope: 'audit:read' },
      schema: {
        tags: ['members'],
        security,
        summary: "The workspace's audit log, newest first (cursor: starting_after): every change made through the API, and sign-ins; kept 90 days",
        description:
          "Who did what and when: each entry names the actor (person or token), the action (`link.created`, `member.role_changed`, `session.failed`…), the resource and the request's address. Filter by `action`, `actorId` or `resourceType`.",
        querystring: ListAuditLogQuery,
        response: { 200: AuditLogEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, ...(await audit.list(principalOf(req), req.query)) }),
  )
}
