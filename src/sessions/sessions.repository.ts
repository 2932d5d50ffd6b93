import type { Db } from '../storage/database.js'
import type { NewSessionRow, SessionRow } from './sessions.table.js'

export function createSessionsRepository(db: Db) {
  return {
    async insert(row: NewSessionRow): Promise<void> {
      await db.insertInto('sessions').values(row).execute()
    },
    findByHash: (hash: string): Promise<SessionRow | undefined> => db.selectFrom('sessions').selectAll().where('session_hash', '=', hash).executeTakeFirst(),
    async touch(id: string, at: number): Promise<void> {
      await db.updateTable('sessions').set({ last_used_at: at }).where('id', '=', id).execute()
    },
    async setWorkspace(id: string, workspaceId: string): Promise<void> {
      await db.updateTable('sessions').set({ workspace_id: workspaceId }).where('id', '=', id).execute()
    },
    async delete(id: string): Promise<void> {
      await db.deleteFrom('sessions').where('id', '=', id).execute()
    },
    /** A person's sessions (in one workspace, or all of them), but perhaps the one kept; returns how many ended. */
    async deleteForUser(userId: string, options: { workspaceId?: string; except?: string } = {}): Promise<number> {
      let query = db.deleteFrom('sessions').where('user_id', '=', userId)
      if (options.workspaceId !== undefined) query = query.where('workspace_id', '=', options.workspaceId)
      if (options.except !== undefined) query = query.where('id', '<>', options.except)
      return Number((await query.executeTakeFirst()).numDeletedRows)
    },
    async deleteForToken(tokenId: string): Promise<number> {
      return Number((await db.deleteFrom('sessions').where('token_id', '=', tokenId).executeTakeFirst()).numDeletedRows)
    },
    /** Sessions unused since `idleBefore`, opened before `openedBefore`, and those of revoked tokens: none can be used again. */
    async prune(idleBefore: number, openedBefore: number): Promise<number> {
      const result = await db
        .deleteFrom('sessions')
        .where((eb) =>
          eb.or([
            eb('last_used_at', '<', idleBefore),
            eb('created_at', '<', openedBefore),
            eb('token_id', 'in', eb.selectFrom('tokens').select('id').where('revoked_at', 'is not', null)),
          ]),
        )
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  }
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>
