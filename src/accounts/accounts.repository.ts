import type { Db } from '../storage/database.js'
import type { NewUserRow, UserRow } from './accounts.table.js'
import type { Role } from './roles.js'

export interface MembershipView {
  workspaceId: string
  workspaceName: string
  role: Role
}

export interface MemberRow {
  userId: string
  email: string
  name: string
  role: Role
  createdAt: number
  lastSignInAt: number | null
}

export function createAccountsRepository(db: Db) {
  return {
    async insertUser(row: NewUserRow): Promise<void> {
      await db.insertInto('users').values(row).execute()
    },
    findUserByEmailKey: (key: string): Promise<UserRow | undefined> => db.selectFrom('users').selectAll().where('email_key', '=', key).executeTakeFirst(),
    findUser: (id: string): Promise<UserRow | undefined> => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),
    listUsers: (): Promise<UserRow[]> => db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute(),
    async deleteUser(id: string): Promise<number> {
      return Number((await db.deleteFrom('users').where('id', '=', id).executeTakeFirst()).numDeletedRows)
    },
    async touchSignIn(id: string, at: number): Promise<void> {
      await db.updateTable('users').set({ last_sign_in_at: at }).where('id', '=', id).execute()
    },
    async setPasswordHash(id: string, hash: string): Promise<void> {
      await db.updateTable('users').set({ password_hash: hash }).where('id', '=', id).execute()
    },

    /** Creates the workspace unless it exists (an owner id first used by a token or the CLI). */
    async ensureWorkspace(id: string, at: number): Promise<void> {
      await db
        .insertInto('workspaces')
        .values({ id, name: id, created_at: at })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute()
    },
    findWorkspace: (id: string) => db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst(),

    /** A person's workspaces, by name. */
    membershipsOf: (userId: string): Promise<MembershipView[]> =>
      db
        .selectFrom('memberships')
        .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
        .select(['memberships.workspace_id as workspaceId', 'workspaces.name as workspaceName', 'memberships.role as role'])
        .where('memberships.user_id', '=', userId)
        .orderBy('workspaces.name')
        .orderBy('workspaces.id')
        .execute(),
    async roleOf(userId: string, workspaceId: string): Promise<Role | undefined> {
      const row = await db
        .selectFrom('memberships')
        .select('role')
        .where('user_id', '=', userId)
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst()
      return row?.role
    },
    /** Adds a membership, or keeps the existing one as it is; returns whether it was added. */
    async addMembership(userId: string, workspaceId: string, role: Role, at: number): Promise<boolean> {
      const result = await db
        .insertInto('memberships')
        .values({ user_id: userId, workspace_id: workspaceId, role, created_at: at })
        .onConflict((oc) => oc.columns(['user_id', 'workspace_id']).doNothing())
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
    },
    members: async (workspaceId: string): Promise<MemberRow[]> =>
      (
        await db
          .selectFrom('memberships')
          .innerJoin('users', 'users.id', 'memberships.user_id')
          .select([
            'users.id as userId',
            'users.email as email',
            'users.name as name',
            'memberships.role as role',
            'memberships.created_at as createdAt',
            'users.last_sign_in_at as lastSignInAt',
          ])
          .where('memberships.workspace_id', '=', workspaceId)
          .orderBy('users.email')
          .execute()
      ).map((row) => ({ ...row, createdAt: Number(row.createdAt), lastSignInAt: row.lastSignInAt === null ? null : Number(row.lastSignInAt) })),
    async countMembers(workspaceId: string): Promise<number> {
      const row = await db
        .selectFrom('memberships')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },
    async countOwners(workspaceId: string): Promise<number> {
      const row = await db
        .selectFrom('memberships')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },
    async setRole(userId: string, workspaceId: string, role: Role): Promise<void> {
      await db.updateTable('memberships').set({ role }).where('user_id', '=', userId).where('workspace_id', '=', workspaceId).execute()
    },
    async removeMembership(userId: string, workspaceId: string): Promise<void> {
      await db.deleteFrom('memberships').where('user_id', '=', userId).where('workspace_id', '=', workspaceId).execute()
    },
  }
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>
