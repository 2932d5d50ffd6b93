import type { Db } from '../storage/database.js'
import type { NewSessionRow } from './sessions.table.js'

export interface ActiveSession {
  id: string
  tokenId: string
  ownerId: string
  scopes: string
  lastUsedAt: number
}

export function createSessionsRepository(db: Db) {
  return {
    async insert(row: NewSessionRow): Promise<void> {
      await db.insertInto('sessions').values(row).execute()
    },
    /** The session with this hash, if its token is still active (one indexed join). */
    async findActiveByHash(hash: string): Promise<ActiveSession | undefined> {
      const row = await db
        .selectFrom('sessions')
        .innerJoin('tokens', 'tokens.id', 'sessions.token_id')
        .select([
          'sessions.id as id',
          'sessions.token_id as tokenId',
          'tokens.owner_id as ownerId',
          'tokens.scopes as scopes',
          'sessions.last_used_at as lastUsedAt',
        ])
        .where('sessions.session_hash', '=', hash)
        .where('tokens.revoked_at', 'is', null)
        .executeTakeFirst()
      return row && { ...row, lastUsedAt: Number(row.lastUsedAt) }
    },
    async touch(id: string, at: number): Promise<void> {
      await db.updateTable('sessions').set({ last_used_at: at }).where('id', '=', id).execute()
    },
    async delete(id: string): Promise<void> {
      await db.deleteFrom('sessions').where('id', '=', id).execute()
    },
    /** Sessions unused since `before`, and those of revoked tokens: none of them can be used again. */
    async prune(before: number): Promise<number> {
      const result = await db
        .deleteFrom('sessions')
        .where((eb) => eb.or([eb('last_used_at', '<', before), eb('token_id', 'in', eb.selectFrom('tokens').select('id').where('revoked_at', 'is not', null))]))
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  }
}
export type SessionsRepository = ReturnType<typeof createSessionsRepository>
