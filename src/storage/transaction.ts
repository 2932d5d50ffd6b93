import { setTimeout as sleep } from 'node:timers/promises'
import type { Transaction } from 'kysely'
import type { Db } from './database.js'
import type { Database } from './schema.js'
import { isRetryableConflict } from './errors.js'

const ATTEMPTS = 4

/**
 * Runs `work` in a transaction and runs it again, after a short random pause, when PostgreSQL
 * aborted it for a serialization failure or a deadlock (several instances writing the same rows).
 * `work` must be safe to repeat: everything it did was rolled back. After the last attempt the
 * error propagates and the error handler answers 503.
 */
export async function inTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work)
    } catch (error) {
      if (!isRetryableConflict(error) || attempt === ATTEMPTS) throw error
      await sleep(Math.random() * 20 * attempt)
    }
  }
}
