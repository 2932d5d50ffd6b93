import { setTimeout as sleep } from 'node:timers/promises'
import type { Transaction as KyselyTransaction } from 'kysely'
import type { Db } from './database.js'
import type { Database } from './schema.js'
import { isRetryableConflict } from './errors.js'

const ATTEMPTS = 4

/**
 * An open transaction: what `work` runs on in `inTransaction`, and what a service hands to another
 * feature (`EventRecorder.record`, `links.anyOnDomain`) so that its writes or checks join the same commit.
 */
export type Transaction = KyselyTransaction<Database>

/**
 * Runs `work` in a transaction. On a transaction already, `work` joins it: the outer one commits, and
 * runs again as a whole after a conflict. Otherwise one is opened, and run again after a short
 * random pause when PostgreSQL aborted it for a serialization failure or a deadlock (several
 * instances writing the same rows); `work` must then be safe to repeat: everything it did was rolled
 * back. After the last attempt the error propagates and the error handler answers 503.
 */
export async function inTransaction<T>(db: Db | Transaction, work: (trx: Transaction) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Transaction)
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work)
    } catch (error) {
      if (!isRetryableConflict(error) || attempt === ATTEMPTS) throw error
      await sleep(Math.random() * 20 * attempt)
    }
  }
}

/** Runs `work` in one transaction, with a feature's repository bound to it and the transaction to hand on. */
export type Transactional<R> = <T>(work: (repo: R, trx: Transaction) => Promise<T>) => Promise<T>

/** The `Transactional` of a repository: `repository(trx)` builds it over each transaction `inTransaction` opens or joins. */
export const transactional =
  <R>(db: Db | Transaction, repository: (trx: Transaction) => R): Transactional<R> =>
  (work) =>
    inTransaction(db, (trx) => work(repository(trx), trx))
