import { principalOf } from '../http/auth.js'
import type { App } from '../http/types.js'
import { errorResponses } from '../shared/schema.js'
import { ChangeRoleBody, MeEnvelope, MemberDeletedEnvelope, MemberEnvelope, MemberListEnvelope, MemberParams } from './accounts.schemas.js'
import { toUser, type AccountsService } from './accounts.service.js'
import type { MembersService } from './members.service.js'

const security: Record<string, string[]>[] = [{ bearer: [] }, { session: [] }]

/** Who is calling, and a workspace's members (docs/api/people-and-workspaces.md). */
export function accountsRoutes(app: App, { accounts, members }: { accounts: AccountsService; members: MembersService }): void {
  app.get(
    '/v1/me',
    {
      schema: {
        tags: ['sessions'],
        security,
        summary: 'Who is calling: the person (if any), the workspace, scopes and role, and every workspace they belong to',
        description:
          "For a person: their name, email, role here and every workspace they belong to. For an API token: the workspace and the token's scopes (no person).",
        response: { 200: MeEnvelope, ...errorResponses },
      },
    },
    async (req) => {
      const caller = principalOf(req)
      const user = caller.actor?.type === 'user' ? await accounts.findUser(caller.actor.id) : undefined
      return {
        success: true as const,
        data: {
          user: user ? toUser(user) : null,
          principal: {
            workspaceId: caller.ownerId,
            scopes: [...caller.scopes],
            role: caller.role,
            via: caller.sessionId === undefined ? ('token' as const) : ('session' as const),
          },
          memberships: user ? await accounts.membershipsOf(user.id) : [],
        },
      }
    },
  )

  const tags = ['members']
  app.get(
    '/v1/members',
    {
      config: { scope: 'members:read' },
      schema: {
        tags,
        security,
        summary: "The workspace's members and their roles",
        description: 'Every member with their role: `owner`, `admin`, `member` or `viewer`.',
        response: { 200: MemberListEnvelope, ...errorResponses },
      },
    },
    async (req) => ({ success: true as const, data: await members.list(principalOf(req)) }),
  )

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route({
      method,
      url: '/v1/members/:userId',
      config: { scope: 'members:write', audit: { resource: 'member', action: 'role_changed', id: 'userId' } },
      schema: {
        tags,
        security,
        summary: "Change a member's role (only an owner grants or takes owner; the last owner stays)",
        description: 'Send `role`. An admin manages members and viewers; only an owner makes or unmakes an owner, and the last owner cannot be demoted (409).',
        params: MemberParams,
        body: ChangeRoleBody,
        response: { 200: MemberEnvelope, ...errorResponses },
      },
      handler: async (req) => ({ success: true as const, data: (await members.changeRole(principalOf(req), req.params.userId, req.body.role)).member }),
    })
  }

  app.delete(
    '/v1/members/:userId',
    {
      config: { scope: 'members:write', audit: { resource: 'member', action: 'removed', id: 'userId' } },
      schema: {
        tags,
        security,
        summary: 'Remove a member: their sessions here end and the tokens they made are revoked',
        description: 'The person keeps their account and other workspaces. The last owner cannot be removed (409).',
        params: MemberParams,
        response: { 200: MemberDeletedEnvelope, ...errorResponses },
      },
    },
    async (req) => {
      await members.remove(principalOf(req), req.params.userId)
      return { success: true as const, data: { userId: req.params.userId, deleted: true as const } }
    },
  )
}
