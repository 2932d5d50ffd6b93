import type { Db } from '../storage/database.js'
import { isUniqueViolation } from '../storage/errors.js'
import type { IdempotencyKeysTable } from './idempotency.table.js'

/** The `idempotency_keys` table: one row per (owner, key), claimed before its response is known. */
export function createIdempotencyRepository(db: Db) {
  return {
    /** Drops the key's record if it expired (`expiredBefore`) or is a claim that never got its response (`abandonedBefore`). */
    async dropStale(ownerId: string, key: string, expiredBefore: number, abandonedBefore: number): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where('owner_id', '=', ownerId)
        .where('key', '=', key)
        .where((eb) => eb.or([eb('created_at', '<', expiredBefore), eb.and([eb('status_code', 'is', null), eb('created_at', '<', abandonedBefore)])]))
        .execute()
    },
    /** Inserts a claim (no response yet); false when the key is held already. */
    async claim(ownerId: string, key: string, requestHash: string, at: number): Promise<boolean> {
      try {
        await db
          .insertInto('idempotency_keys')
          .values({ owner_id: ownerId, key, request_hash: requestHash, status_code: null, response_body: null, created_at: at })
          .execute()
        return true
      } catch (error) {
        if (isUniqueViolation(error)) return false
        throw error
      }
    },
    find: (ownerId: string, key: string): Promise<IdempotencyKeysTable | undefined> =>
      db.selectFrom('idempotency_keys').selectAll().where('owner_id', '=', ownerId).where('key', '=', key).executeTakeFirst(),
    async release(ownerId: string, key: string): Promise<void> {
      await db.deleteFrom('idempotency_keys').where('owner_id', '=', ownerId).where('key', '=', key).execute()
    },
    async storeResponse(ownerId: string, key: string, statusCode: number, body: string | null): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ status_code: statusCode, response_body: body })
        .where('owner_id', '=', ownerId)
        .where('key', '=', key)
        .execute()
    },
    async deleteOlderThan(before: number): Promise<void> {
      await db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute()
    },
  }
}
export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>
