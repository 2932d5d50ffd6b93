import type { InferResult } from 'kysely'
import type { Db } from '../storage/database.js'
import { repeatedStatement } from '../storage/repeated-statement.js'
import type { NewTokenRow, TokenRow } from './tokens.table.js'

/** Active tokens with the role their maker holds in the token's workspace, as findActiveWithRole reads them. */
const withRole = (db: Db) =>
  db
    .selectFrom('tokens')
    .selectAll('tokens')
    .select((eb) =>
      eb
        .selectFrom('memberships')
        .select('memberships.role')
        .whereRef('memberships.user_id', '=', 'tokens.user_id')
        .whereRef('memberships.workspace_id', '=', 'tokens.owner_id')
        .as('role'),
    )
    .where('tokens.revoked_at', 'is', null)

type TokenWithRole = InferResult<ReturnType<typeof withRole>>[number]

export function createTokensRepository(db: Db) {
  const byHash = repeatedStatement<{ hash: string }, TokenWithRole>(['hash'], 1, (db, [where]) =>
    withRole(db).where('tokens.token_hash', '=', where?.hash ?? ''),
  )
  const byId = repeatedStatement<{ id: string }, TokenWithRole>(['id'], 1, (db, [where]) => withRole(db).where('tokens.id', '=', where?.id ?? ''))
  return {
    async insert(row: NewTokenRow): Promise<void> {
      await db.insertInto('tokens').values(row).execute()
    },
    async findActiveByHash(hash: string): Promise<TokenRow | undefined> {
      return db.selectFrom('tokens').selectAll().where('token_hash', '=', hash).where('revoked_at', 'is', null).executeTakeFirst()
    },
    /**
     * An active token by hash or id, with the role its maker holds in its workspace (null for an
     * operator's token, or when the maker has left): one indexed lookup and one primary-key lookup.
     * The role is a subquery, not a LEFT JOIN: the SQLite that better-sqlite3 builds prepared the
     * join again at every run (~15 µs of the serving thread per API request, docs/performance.md).
     * Compiled once per key (repeatedStatement): every API request runs it.
     */
    async findActiveWithRole(where: { hash: string } | { id: string }) {
      const [row] = 'hash' in where ? await byHash(db, [where]) : await byId(db, [where])
      return row
    },
    async touch(id: string, at: number): Promise<void> {
      await db.updateTable('tokens').set({ last_used_at: at }).where('id', '=', id).execute()
    },
    async revokeMadeBy(userId: string, workspaceId: string, at: number): Promise<number> {
      const result = await db
        .updateTable('tokens')
        .set({ revoked_at: at })
        .where('user_id', '=', userId)
        .where('owner_id', '=', workspaceId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows)
    },
    /** Active tokens by id, hash or the non-secret prefix (which several tokens may share). */
    findActive(where: { id: string } | { hash: string } | { prefix: string }): Promise<TokenRow[]> {
      const query = db.selectFrom('tokens').selectAll().where('revoked_at', 'is', null)
      if ('id' in where) return query.where('id', '=', where.id).execute()
      if ('hash' in where) return query.where('token_hash', '=', where.hash).execute()
      return query.where('prefix', '=', where.prefix).limit(10).execute()
    },
    /** An owner's active tokens (neither revoked nor expired at `now`), newest first. */
    listActiveForOwner(ownerId: string, now: number): Promise<TokenRow[]> {
      return db
        .selectFrom('tokens')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute()
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
    /** Revokes by id; returns how many tokens it revoked (0 when already revoked). */
    async revoke(id: string, at: number): Promise<number> {
      const result = await db.updateTable('tokens').set({ revoked_at: at }).where('revoked_at', 'is', null).where('id', '=', id).executeTakeFirst()
      return Number(result.numUpdatedRows)
    },
  }
}
export type TokensRepository = ReturnType<typeof createTokensRepository>
