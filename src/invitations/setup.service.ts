import { normalizeEmail, type AccountsService } from '../accounts/accounts.service.js'
import type { Opened, SessionsService } from '../sessions/sessions.service.js'
import { workspaceHasOwner } from './invitations.errors.js'
import { linkUrl, SETUP_TTL_MS, type OneTimeLinks } from './one-time-links.service.js'

/**
 * The first owner of a workspace that has no member yet (the bootstrap workspace on a first start):
 * a setup link printed by the server, used once (docs/accounts.md#first-start).
 */
export function createSetupService(deps: { links: OneTimeLinks; accounts: AccountsService; sessions: SessionsService }) {
  const { links, accounts, sessions } = deps

  return {
    /** Whether the workspace still waits for its first member. */
    needed: async (workspaceId: string) => !(await accounts.hasMembers(workspaceId)),

    /** A setup link (24 h) for the workspace. Earlier ones stay valid: whichever is used first makes the owner, and spends the others. */
    async issue(workspaceId: string, base: string): Promise<{ url: string; expiresAt: string }> {
      const { row, secret } = await links.issue({ kind: 'setup', workspaceId, role: 'owner' }, SETUP_TTL_MS)
      return { url: linkUrl(base, 'setup', secret), expiresAt: new Date(Number(row.expires_at)).toISOString() }
    },

    /** Creates the workspace's first owner and signs them in; 410 once the code is used or expired, or the workspace has a member. */
    async setup(code: string, input: { email: string; name: string; password: string }): Promise<Opened> {
      normalizeEmail(input.email)
      const link = await links.usable(code, 'setup', 'setup code', 'code')
      const workspaceId = link.workspace_id
      if (await accounts.hasMembers(workspaceId)) throw workspaceHasOwner()
      const user = await accounts.newUser({ email: input.email, name: input.name.trim(), password: input.password })
      await links.useSetupThen(link, 'code', async (trx) => {
        if (await accounts.hasMembers(workspaceId, trx)) throw workspaceHasOwner()
        await accounts.insertUser(user, trx)
        await accounts.join(user.id, workspaceId, 'owner', trx)
      })
      return sessions.openForUser(user.id, workspaceId)
    },
  }
}

export type SetupService = ReturnType<typeof createSetupService>
