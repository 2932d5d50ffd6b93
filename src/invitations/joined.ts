import type { AuditService } from '../audit/audit.service.js'
import type { Principal } from '../tokens/tokens.service.js'

/**
 * `member.joined` in the audit log, by the person who just joined through a one-time link (an
 * invitation or the setup): before it no one was signed in, so the route records it itself.
 */
export async function recordJoined(audit: AuditService, joined: Principal): Promise<void> {
  if (joined.actor === undefined) return
  await audit.record({ workspaceId: joined.ownerId, actor: joined.actor, action: 'member.joined', resourceType: 'member', resourceId: joined.actor.id })
}
