import { sql } from 'kysely'
import type { Db } from '../storage/database.js'
import { transactional } from '../storage/transaction.js'
import type { DomainRow } from './domains.table.js'

function queries(db: Db) {
  return {
    async insert(row: DomainRow): Promise<void> {
      await db.insertInto('domains').values(row).execute()
    },
    /** The owner's claim on `name`, pending or verified. */
    findOwned: (ownerId: string, name: string): Promise<DomainRow | undefined> =>
      db.selectFrom('domains').selectAll().where('name', '=', name).where('owner_id', '=', ownerId).executeTakeFirst(),
    /** Whether anyone holds `name` verified. */
    verifiedOwner: async (name: string): Promise<string | undefined> =>
      (await db.selectFrom('domains').select('owner_id').where('name', '=', name).where('status', '=', 'verified').executeTakeFirst())?.owner_id,
    /** The claimant posted or verified its pending claim again: it lives PENDING_TTL_MS more. */
    async renew(ownerId: string, name: string, at: number): Promise<void> {
      await db.updateTable('domains').set({ renewed_at: at }).where('name', '=', name).where('owner_id', '=', ownerId).execute()
    },
    listByOwner: (ownerId: string): Promise<DomainRow[]> => db.selectFrom('domains').selectAll().where('owner_id', '=', ownerId).orderBy('name').execute(),
    /**
     * The owner's live links per domain (only `name`'s when given): one grouped query for the whole list.
     * Links are the links feature's table, read here so that a domain answers its count without a query per domain.
     */
    async linkCounts(ownerId: string, name?: string): Promise<Map<string, number>> {
      let query = db
        .selectFrom('links')
        .select(['domain', (eb) => eb.fn.countAll().as('links')])
        .where('owner_id', '=', ownerId)
        .where('deleted_at', 'is', null)
      if (name !== undefined) query = query.where('domain', '=', name)
      const rows = await query.groupBy('domain').execute()
      // PostgreSQL answers count(*) as a bigint string.
      return new Map(rows.map((r) => [r.domain, Number(r.links)]))
    },
    allNames: async (): Promise<string[]> => (await db.selectFrom('domains').select('name').distinct().execute()).map((r) => r.name),
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
    /** Records a check that found nothing (or failed); only a pending claim changes. */
    async recordPending(ownerId: string, name: string, at: number): Promise<void> {
      await db
        .updateTable('domains')
        .set({ last_checked_at: at })
        .where('name', '=', name)
        .where('owner_id', '=', ownerId)
        .where('status', '=', 'pending')
        .execute()
    },
    /**
     * Marks the owner's pending claim verified (false when it no longer is pending, or when the name
     * became another owner's first: the unique index on verified names refuses a second).
     */
    async markVerified(ownerId: string, name: string, at: number): Promise<boolean> {
      const r = await db
        .updateTable('domains')
        .set({ status: 'verified', last_checked_at: at, verified_at: at })
        .where('name', '=', name)
        .where('owner_id', '=', ownerId)
        .where('status', '=', 'pending')
        .executeTakeFirst()
      return Number(r.numUpdatedRows) > 0
    },
    /** Ends the other owners' pending claims on a name someone has verified; returns their owners. */
    async dropOtherClaims(name: string, ownerId: string): Promise<string[]> {
      const rows = await db
        .deleteFrom('domains')
        .where('name', '=', name)
        .where('owner_id', '!=', ownerId)
        .where('status', '=', 'pending')
        .returning('owner_id')
        .execute()
      return rows.map((r) => r.owner_id)
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
    /** Ends the pending claims not renewed since `renewedBefore`; returns them. */
    async expirePending(renewedBefore: number): Promise<{ name: string; owner_id: string }[]> {
      return db.deleteFrom('domains').where('status', '=', 'pending').where('renewed_at', '<', renewedBefore).returning(['name', 'owner_id']).execute()
    },
    async delete(ownerId: string, name: string): Promise<boolean> {
      const r = await db.deleteFrom('domains').where('owner_id', '=', ownerId).where('name', '=', name).executeTakeFirst()
      return Number(r.numDeletedRows) > 0
    },
  }
}
export function createDomainsRepository(db: Db) {
  return {
    ...queries(db),
    /**
     * Runs `work` in one transaction (again if it lost a deadlock); `trx` is handed on so that another
     * feature's repository can take part in it (links on a domain being deleted).
     */
    transaction: transactional(db, queries),
  }
}
export type DomainsRepository = ReturnType<typeof createDomainsRepository>
