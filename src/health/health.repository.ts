import type { Db } from '../storage/database.js'
import type { Transaction } from '../storage/transaction.js'
import type { LinkRow } from '../links/links.table.js'
import type { CheckOutcome, HealthState } from './health.check.js'

/** A link the checker is to look at. */
export interface DueLink {
  readonly id: string
  readonly destination: string
}

/**
 * Destination health in SQL (migration 0025): the links due for a check, the conditional write of a
 * verdict, the count of broken links, and the lease that lets one instance at a time run the checker.
 */
export function createHealthRepository(db: Db) {
  /** Live links: not deleted, and not expired by date (an expired link no longer sends anyone to its destination). */
  const live = (now: number) =>
    db
      .selectFrom('links')
      .select(['id', 'destination'])
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))

  return {
    /**
     * Up to `limit` live links never checked, or else checked before `checkedBefore`, the longest
     * unchecked first: two range reads of the health_checked_at index (null first whatever the engine's
     * order of nulls), so a batch costs the same however many links there are.
     */
    async due(now: number, checkedBefore: number, limit: number): Promise<DueLink[]> {
      const never = await live(now).where('health_checked_at', 'is', null).limit(limit).execute()
      if (never.length >= limit) return never
      const stale = await live(now)
        .where('health_checked_at', '<', checkedBefore)
        .orderBy('health_checked_at')
        .limit(limit - never.length)
        .execute()
      return [...never, ...stale]
    },

    /** The live link, whoever owns it. */
    find: (trx: Transaction | Db, id: string): Promise<LinkRow | undefined> =>
      trx.selectFrom('links').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst(),

    /**
     * Writes the verdict of a check unless another check wrote one since `previous` was read (then
     * false: read again and retry), so that two checks at once never both see the turn to broken.
     */
    async write(trx: Transaction, id: string, previous: HealthState, next: HealthState, outcome: CheckOutcome, now: number): Promise<boolean> {
      const result = await trx
        .updateTable('links')
        .set({
          health_status: next.status,
          health_failures: next.failures,
          health_http_status: outcome.httpStatus,
          health_error: outcome.error,
          health_checked_at: now,
        })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .where('health_status', '=', previous.status)
        .where('health_failures', '=', previous.failures)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    /** The link's tags, sorted (for the link object of its event). */
    tagsOf: async (trx: Transaction, id: string): Promise<string[]> =>
      (await trx.selectFrom('link_tags').select('tag').where('link_id', '=', id).orderBy('tag').execute()).map((r) => r.tag),

    /** Live links whose destination is broken, every owner together. */
    async brokenCount(): Promise<number> {
      const row = await db
        .selectFrom('links')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('health_status', '=', 'broken')
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    /**
     * Takes or renews lease `name` for `holder` until `until`: one conditional UPDATE that succeeds when
     * the lease is free, expired or already this holder's. The row is created on first use.
     */
    async takeLease(name: string, holder: string, now: number, until: number): Promise<boolean> {
      await db
        .insertInto('health_leases')
        .values({ name, holder, expires_at: 0 })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute()
      const result = await db
        .updateTable('health_leases')
        .set({ holder, expires_at: until })
        .where('name', '=', name)
        .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<=', now)]))
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    /** Who holds lease `name` now (its expiry after `now`); undefined when it is free or expired. */
    async liveHolder(name: string, now: number): Promise<string | undefined> {
      const row = await db.selectFrom('health_leases').select('holder').where('name', '=', name).where('expires_at', '>', now).executeTakeFirst()
      return row?.holder
    },

    /** Gives lease `name` up if `holder` has it, so that another instance takes over at once. */
    async releaseLease(name: string, holder: string): Promise<void> {
      await db.updateTable('health_leases').set({ expires_at: 0 }).where('name', '=', name).where('holder', '=', holder).execute()
    },
  }
}
export type HealthRepository = ReturnType<typeof createHealthRepository>
