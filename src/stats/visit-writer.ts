import { randomBytes } from 'node:crypto'
import { classify, DAY_MS, dayOf } from './classify.js'
import type { ClickSink } from './clicks.js'
import type { StatsRepository } from './stats.repository.js'

/**
 * Classifies a batch of visits and writes it in one transaction. It runs in the click writer
 * thread (click-writer.worker.ts), beside the redirect rather than on its event loop.
 */
export function createVisitWriter(repo: StatsRepository): ClickSink {
  const salts = new Map<number, Promise<string>>()

  /** The day's salt, read once per day (every instance shares the one in the database). */
  function daySalt(day: number): Promise<string> {
    let salt = salts.get(day)
    if (!salt) {
      // Only today's and yesterday's salts can still be needed (a late flush).
      for (const old of salts.keys()) if (old < day - DAY_MS) salts.delete(old)
      salt = repo.daySalt(day, randomBytes(32).toString('base64url'))
      salt.catch(() => salts.delete(day))
      salts.set(day, salt)
    }
    return salt
  }

  return async (visits) => {
    const days = [...new Set(visits.map((v) => dayOf(v.at)))]
    const saltOf = new Map(await Promise.all(days.map(async (day) => [day, await daySalt(day)] as const)))
    await repo.writeBatch(visits.map((v) => classify(v, saltOf.get(dayOf(v.at)) as string)))
  }
}
