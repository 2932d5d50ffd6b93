import type { OneTimeLinkRow } from '../accounts/accounts.table.js'
import { normalizeEmail, type AccountsService } from '../accounts/accounts.service.js'
import type { Role } from '../accounts/roles.js'
import { createdByOf, type Actor } from '../shared/actor.js'
import type { Clock } from '../shared/clock.js'
import { validationError } from '../shared/errors.js'
import type { Opened, SessionPrincipal, SessionsService } from '../sessions/sessions.service.js'
import type { Principal } from '../tokens/tokens.service.js'
import { alreadyMember, emailMismatch, invitationNotFound, onlyOwnersInviteOwners, signInFirst } from './invitations.errors.js'
import { INVITATION_TTL_MS, linkUrl, type OneTimeLinks } from './one-time-links.service.js'

export interface Invitation {
  id: string
  email: string
  role: Role
  workspaceId: string
  createdAt: string
  createdBy: Actor | null
  expiresAt: string
}

/** What a mailer needs to tell the invited person (docs/accounts.md#invitations). */
export interface InvitationNotice extends Invitation {
  url: string
  workspaceName: string
}

const iso = (at: number) => new Date(Number(at)).toISOString()

const toInvitation = (row: OneTimeLinkRow): Invitation => ({
  id: row.id,
  email: row.email ?? '',
  role: row.role ?? 'viewer',
  workspaceId: row.workspace_id,
  createdAt: iso(row.created_at),
  createdBy: createdByOf(row),
  expiresAt: iso(row.expires_at),
})

const WHAT = 'invitation'

export interface InvitationsDeps {
  links: OneTimeLinks
  accounts: AccountsService
  sessions: SessionsService
  clock: Clock
  /**
   * Told of every new invitation, to mail it. Not awaited, and its failure is its own to report: the
   * invitation stands (its link is in the response) whether or not a mail went out.
   */
  notify?: (invitation: InvitationNotice) => void
}

/** Invitations to a workspace (docs/api/people-and-workspaces.md#invitations). */
export function createInvitationsService(deps: InvitationsDeps) {
  const { links, accounts, sessions, clock } = deps

  /** A new person with the invitation's email and role; 409 when that email already has an account. */
  async function createAndJoin(link: OneTimeLinkRow, name: string, password: string): Promise<Opened> {
    if (await accounts.findUserByEmail(link.email ?? '')) throw signInFirst()
    const user = await accounts.newUser({ email: link.email ?? '', name, password })
    await links.useThen(link, WHAT, 'secret', async (trx) => {
      await accounts.insertUser(user, trx)
      await accounts.join(user.id, link.workspace_id, link.role ?? 'viewer', trx)
    })
    return sessions.openForUser(user.id, link.workspace_id)
  }

  /** The signed-in person joins (the invitation must name their email); their session moves to a new one there. */
  async function joinAs(link: OneTimeLinkRow, userId: string, sessionId: string): Promise<Opened> {
    const user = await accounts.findUser(userId)
    if (!user || user.email_key !== (link.email ?? '').toLowerCase()) throw emailMismatch()
    await links.useThen(link, WHAT, 'secret', async (trx) => {
      if (!(await accounts.join(userId, link.workspace_id, link.role ?? 'viewer', trx))) throw alreadyMember(user.email)
    })
    const opened = await sessions.openForUser(userId, link.workspace_id)
    await sessions.close(sessionId)
    return opened
  }

  return {
    /**
     * Invites `email` to the caller's workspace as `role`; the secret is in the returned `url` only.
     * An earlier pending invitation of the same email there is revoked: the newest link is the one that works.
     */
    async create(caller: Principal, input: { email: string; role: Role }, base: string): Promise<Invitation & { url: string }> {
      if (input.role === 'owner' && caller.role !== 'owner') throw onlyOwnersInviteOwners()
      const { email, key } = normalizeEmail(input.email)
      const workspaceId = caller.ownerId
      const user = await accounts.findUserByEmail(key)
      if (user && (await accounts.roleOf(user.id, workspaceId)) !== undefined) throw alreadyMember(email)
      for (const earlier of await links.repo.listPending(workspaceId, 'invitation', clock.now())) {
        if (earlier.email?.toLowerCase() === key) await links.repo.revoke(earlier.id, clock.now())
      }
      await accounts.ensureWorkspace(workspaceId)
      const { row, secret } = await links.issue({ kind: 'invitation', workspaceId, email, role: input.role, createdBy: caller.actor }, INVITATION_TTL_MS)
      const invitation = { ...toInvitation(row), url: linkUrl(base, 'invitation', secret) }
      if (deps.notify) deps.notify({ ...invitation, workspaceName: (await accounts.workspace(workspaceId))?.name ?? workspaceId })
      return invitation
    },

    /** The caller's workspace's invitations that can still be accepted, newest first. */
    list: async (caller: Principal): Promise<Invitation[]> => (await links.repo.listPending(caller.ownerId, 'invitation', clock.now())).map(toInvitation),

    /** Revokes a pending invitation of the caller's workspace; any other id (used, expired, another workspace's) is 404. */
    async revoke(caller: Principal, id: string): Promise<Invitation> {
      const row = await links.repo.findPending(id, caller.ownerId, 'invitation', clock.now())
      if (!row || !(await links.repo.revoke(row.id, clock.now()))) throw invitationNotFound()
      return toInvitation(row)
    },

    /**
     * Accepts an invitation and signs in, in its workspace. With `name` and `password`, a new person
     * is created with the invitation's email and role; with neither, the signed-in person (`person`,
     * whose email must be the invitation's) joins, and their session is replaced by one in the new
     * workspace. Either way the invitation is used in the same transaction as the membership is made.
     */
    async accept(secret: string, input: { name?: string; password?: string }, person: SessionPrincipal | undefined): Promise<Opened> {
      const usable = () => links.usable(secret, 'invitation', WHAT, 'secret')
      if (input.password !== undefined) {
        const name = input.name?.trim()
        if (!name) throw validationError('name', 'name (1 to 100 characters) is required with password')
        return createAndJoin(await usable(), name, input.password)
      }
      if (input.name !== undefined) throw validationError('password', 'password is required with name')
      // A person's own session: one opened with a token stands for the token, not for someone who can join.
      const userId = person?.tokenId === undefined ? person?.userId : undefined
      if (person === undefined || userId === undefined) {
        throw validationError('password', 'name and password create an account; to join with the account you have, sign in first and send the secret alone')
      }
      return joinAs(await usable(), userId, person.sessionId)
    },
  }
}

export type InvitationsService = ReturnType<typeof createInvitationsService>
