import type { Db } from '../storage/database.js'
import type { NewTokenRow, TokenRow } from './tokens.table.js'

export function createTokensRepository(db: Db) {
  return {
    async insert(row: NewTokenRow): Promise<void> {
      await db.insertInto('tokens').values(row).execute()
    },
    async findActiveByHash(hash: string): Promise<TokenRow | undefined> {
      return db.selectFrom('tokens').selectAll().where('token_hash', '=', hash).where('revoked_at', 'is', null).executeTakeFirst()
    },
    async list(): Promise<TokenRow[]> {
      return db.selectFrom('tokens').selectAll().orderBy('created_at').orderBy('id').execute()
    },
    async countActive(): Promise<number> {
      const row = await db
        .selectFrom('tokens')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },
    /** Revokes by id or by hash; returns how many tokens it revoked (0 or 1). */
    async revoke(idOrHash: { id: string } | { hash: string }, at: number): Promise<number> {
      const query = db.updateTable('tokens').set({ revoked_at: at }).where('revoked_at', 'is', null)
      const result = await ('id' in idOrHash
        ? query.where('id', '=', idOrHash.id)
        : query.where('token_hash', '=', idOrHash.hash)
      ).executeTakeFirst()
      return Number(result.numUpdatedRows)
    },
  }
}
export type TokensRepository = ReturnType<typeof createTokensRepository>
