import { chunks } from '../shared/chunks.js'
import type { Db } from '../storage/database.js'
import { inTransaction } from '../storage/transaction.js'
import type { MissingPathVisitsTable } from './missing-paths.table.js'

export type MissingPathRow = MissingPathVisitsTable

/** A domain whose missing paths a reader may see, and the hour from which on (visits before it were someone else's). */
export interface VisibleDomain {
  readonly name: string
  readonly since: number
}

// Rows per multi-row upsert: 5 parameters each, far below either database's bound.
const CHUNK = 1000

export function createMissingPathsRepository(db: Db) {
  return {
    /**
     * Adds the counts to the stored ones (a row per domain, hour and path, shared by every instance) in
     * one transaction: a failure adds nothing, so the caller may retry the same rows. Rows go in key
     * order, so that two instances writing alike rows lock them in the same order (no deadlock).
     */
    async add(rows: readonly MissingPathRow[]): Promise<void> {
      const sorted = [...rows].sort((a, b) =>
        a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : a.hour - b.hour || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
      )
      await inTransaction(db, async (trx) => {
        for (const part of chunks(sorted, CHUNK)) {
          await trx
            .insertInto('missing_path_visits')
            .values(part)
            .onConflict((oc) =>
              oc.columns(['domain', 'hour', 'path']).doUpdateSet((eb) => ({
                clicks: eb('missing_path_visits.clicks', '+', eb.ref('excluded.clicks')),
                // max() of two values is spelled differently by each dialect; CASE is not.
                last_at: eb
                  .case()
                  .when('excluded.last_at', '>', eb.ref('missing_path_visits.last_at'))
                  .then(eb.ref('excluded.last_at'))
                  .else(eb.ref('missing_path_visits.last_at'))
                  .end(),
              })),
            )
            .execute()
        }
      })
    },

    /** The most visited paths of these domains in [from, to) (each domain from its `since` on), by clicks, then domain and path. */
    async top(domains: readonly VisibleDomain[], from: number, to: number, limit: number) {
      if (domains.length === 0) return []
      const rows = await db
        .selectFrom('missing_path_visits')
        .select((eb) => ['domain', 'path', eb.fn.sum<number | string>('clicks').as('clicks'), eb.fn.max<number | string>('last_at').as('last_at')])
        .where('hour', '<', to)
        .where((eb) => eb.or(domains.map((d) => eb.and([eb('domain', '=', d.name), eb('hour', '>=', Math.max(from, d.since))]))))
        .groupBy(['domain', 'path'])
        .orderBy('clicks', 'desc')
        .orderBy('domain')
        .orderBy('path')
        .limit(limit)
        .execute()
      return rows.map((r) => ({ domain: r.domain, path: r.path, clicks: Number(r.clicks), lastAt: Number(r.last_at) }))
    },

    /** Retention: the hours before `before` go. */
    async prune(before: number): Promise<void> {
      await db.deleteFrom('missing_path_visits').where('hour', '<', before).execute()
    },
  }
}
export type MissingPathsRepository = ReturnType<typeof createMissingPathsRepository>
