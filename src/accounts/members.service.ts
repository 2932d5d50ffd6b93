import { createHash } from 'node:crypto'
import { AppError, conflict, notFound } from '../shared/errors.js'
import type { Clock } from '../shared/clock.js'
import type { Principal } from '../tokens/tokens.service.js'
import type { Transaction, Transactional } from '../storage/transaction.js'
import type { AccountsRepository, MemberRow } from './accounts.repository.js'
import type { Role } from './roles.js'

export interface Member {
  userId: string
  email: string
  name: string
  role: Role
  createdAt: string
  lastSignInAt: string | null
}

const toMember = (row: MemberRow): Member => ({
  ...row,
  createdAt: new Date(row.createdAt).toISOString(),
  lastSignInAt: row.lastSignInAt === null ? null : new Date(row.lastSignInAt).toISOString(),
})

const memberNotFound = () => notFound('member in this workspace', 'userId')
const ownersOnly = () => new AppError(403, 'forbidden', 'only an owner grants or takes the owner role, or removes an owner', 'role')
const lastOwner = () => conflict('the last owner of a workspace can be neither demoted nor removed: make someone else owner first', 'userId')

/** One advisory lock per workspace's memberships: two owners demoting each other cannot leave none. */
const lockKey = (workspaceId: string) => createHash('sha256').update(`members\n${workspaceId}`).digest().readInt32BE(0)

export interface MembersDeps {
  transaction: Transactional<AccountsRepository>
  lock: (trx: Transaction, key: number) => Promise<void>
  /** Ends what a person who leaves a workspace could still use there: sessions and the tokens they made. */
  onLeft: (userId: string, workspaceId: string) => Promise<void>
  clock: Clock
}

/** A workspace's members and their roles (docs/api/people-and-workspaces.md#members). */
export function createMembersService(deps: MembersDeps) {
  const { transaction, lock, onLeft } = deps

  /** Runs `work` on the workspace's memberships, locked, with the target's current role. */
  const onMember = <T>(caller: Principal, userId: string, work: (repo: AccountsRepository, role: Role) => Promise<T>) =>
    transaction(async (repo, trx) => {
      await lock(trx, lockKey(caller.ownerId))
      const role = await repo.roleOf(userId, caller.ownerId)
      if (role === undefined) throw memberNotFound()
      return work(repo, role)
    })

  const assertNotLastOwner = async (repo: AccountsRepository, workspaceId: string, role: Role) => {
    if (role === 'owner' && (await repo.countOwners(workspaceId)) <= 1) throw lastOwner()
  }

  const list = async (caller: Principal): Promise<Member[]> => (await transaction((repo) => repo.members(caller.ownerId))).map(toMember)

  return {
    list,

    async changeRole(caller: Principal, userId: string, role: Role): Promise<{ member: Member; from: Role }> {
      const from = await onMember(caller, userId, async (repo, current) => {
        if ((current === 'owner' || role === 'owner') && current !== role && caller.role !== 'owner') throw ownersOnly()
        if (role !== 'owner') await assertNotLastOwner(repo, caller.ownerId, current)
        await repo.setRole(userId, caller.ownerId, role)
        return current
      })
      const member = (await list(caller)).find((m) => m.userId === userId)
      if (!member) throw memberNotFound()
      return { member, from }
    },

    async remove(caller: Principal, userId: string): Promise<Member> {
      const member = (await list(caller)).find((m) => m.userId === userId)
      await onMember(caller, userId, async (repo, role) => {
        if (role === 'owner' && caller.role !== 'owner') throw ownersOnly()
        await assertNotLastOwner(repo, caller.ownerId, role)
        await repo.removeMembership(userId, caller.ownerId)
      })
      await onLeft(userId, caller.ownerId)
      if (!member) throw memberNotFound()
      return member
    },
  }
}

export type MembersService = ReturnType<typeof createMembersService>
