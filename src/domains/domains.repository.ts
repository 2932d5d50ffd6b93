import { sql } from 'kysely'
import type { Db } from '../storage/database.js'
import { inTransaction } from '../storage/transaction.js'
import type { DomainRow, DomainStatus } from './domains.table.js'

function queries(db: Db) {
  return {
    async insert(row: DomainRow): Promise<void> {
      await db.insertInto('domains').values(row).execute()
    },
    find: (name: string): Promise<DomainRow | undefined> => db.selectFrom('domains').selectAll().where('name', '=', name).executeTakeFirst(),
    listByOwner: (ownerId: string): Promise<DomainRow[]> => db.selectFrom('domains').selectAll().where('owner_id', '=', ownerId).orderBy('name').execute(),
    allNames: async (): Promise<string[]> => (await db.selectFrom('domains').select('name').execute()).map((r) => r.name),
    /** Pending domains, the longest unchecked first, so that a bounded round reaches every one in turn. */
    listPending: (limit: number): Promise<DomainRow[]> =>
      db
        .selectFrom('domains')
        .selectAll()
        .where('status', '=', 'pending')
        .orderBy(sql`coalesce(last_checked_at, 0)`)
        .orderBy('name')
        .limit(limit)
        .execute(),
    /** Records a check; only a pending domain changes, so a concurrent check never un-verifies one. */
    async recordCheck(name: string, status: DomainStatus, at: number): Promise<void> {
      await db
        .updateTable('domains')
        .set({ status, last_checked_at: at, verified_at: status === 'verified' ? at : null })
        .where('name', '=', name)
        .where('status', '=', 'pending')
        .execute()
    },
    /**
     * A no-op write on the owner's verified domain: it takes the row lock, so it waits for a delete in
     * flight, and tells whether the row is still there once that one has committed.
     */
    async touchVerified(ownerId: string, name: string): Promise<boolean> {
      const r = await db
        .updateTable('domains')
        .set((eb) => ({ status: eb.ref('status') }))
        .where('name', '=', name)
        .where('owner_id', '=', ownerId)
        .where('status', '=', 'verified')
        .executeTakeFirst()
      return Number(r.numUpdatedRows) > 0
    },
    /** Drops a claim still pending since before `createdBefore`; tells whether there was one. */
    async deleteStalePending(name: string, createdBefore: number): Promise<boolean> {
      const r = await db
        .deleteFrom('domains')
        .where('name', '=', name)
        .where('status', '=', 'pending')
        .where('created_at', '<', createdBefore)
        .executeTakeFirst()
      return Number(r.numDeletedRows) > 0
    },
    async delete(ownerId: string, name: string): Promise<boolean> {
      const r = await db.deleteFrom('domains').where('owner_id', '=', ownerId).where('name', '=', name).executeTakeFirst()
      return Number(r.numDeletedRows) > 0
    },
  }
}
type Queries = ReturnType<typeof queries>

export function createDomainsRepository(db: Db) {
  return {
    ...queries(db),
    /**
     * Runs `work` in one transaction (again if it lost a deadlock); `trx` is handed on so that another
     * feature's repository can take part in it (links on a domain being deleted).
     */
    transaction: <T>(work: (tx: Queries, trx: Db) => Promise<T>): Promise<T> => inTransaction(db, (trx) => work(queries(trx), trx)),
  }
}
export type DomainsRepository = ReturnType<typeof createDomainsRepository>
