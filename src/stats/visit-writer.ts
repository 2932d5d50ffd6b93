import { randomBytes } from 'node:crypto'
import { COMPACT_AFTER_MS } from './block-compaction.js'
import { DAY_MS, hourOf } from './classify.js'
import type { ClickSink } from './clicks.js'
import type { Rollup } from './click-rollup.js'
import type { GeoDatabase } from './geoip.js'
import type { StatsRepository } from './stats.repository.js'
import { classifyBatch, daysOf, type EncodedVisits } from './visit-batch.js'
import type { VisitColumns } from './visit-columns.js'

/**
 * Another writer's journal rows are rolled up by this one once they are this much older than the
 * longest a live writer keeps them (its click blocks' interval, and then the roll-up's): that writer
 * stopped without rolling them up (a crash).
 */
export const STALE_JOURNAL_MS = 60_000

const closedHour = (now: number) => hourOf(now - COMPACT_AFTER_MS)

/**
 * Classifies batches of visits (with `geo`, the IP database, for countries and cities) and appends each to the click journal (one row, in columns), then
 * rolls the journal up on request. It runs in the click writer thread (click-writer.worker.ts),
 * beside the redirect rather than on its event loop. `shared`: other instances write the same
 * database (each rolls up its own batches); without them, any row in the journal is this writer's
 * to roll up (those a crashed process left). With the click blocks, it compacts those of closed hours
 * (ADR 0014), unless `compact` is false (a bench measuring them as the roll-up writes them).
 */
export function createVisitWriter(
  repo: StatsRepository,
  rollup: Rollup,
  options: { shared: boolean; blockIntervalMs: number; now: () => number; staleJournalMs?: number; geo?: GeoDatabase; compact?: boolean },
): ClickSink {
  const salts = new Map<number, Promise<string>>()
  const instance = randomBytes(12).toString('base64url')
  /** This writer's journal rows not in click blocks yet, as appended: a roll-up need not parse them again. */
  const own = new Map<string, VisitColumns>()
  /** The last hour whose blocks were all compacted: nothing to look for until the next one closes. */
  let compactedFor: number | undefined
  const staleBefore = (now: number) => (options.shared ? now - options.blockIntervalMs - (options.staleJournalMs ?? STALE_JOURNAL_MS) : Infinity)

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

  /** Classifies a batch (with the salts of its days, read first) and appends it to the journal. */
  async function writeEncoded(batch: EncodedVisits): Promise<void> {
    if (batch.numbers.length === 0) return
    const salts = new Map<number, string>()
    for (const day of daysOf(batch)) salts.set(day, await daySalt(day))
    const columns = classifyBatch(batch, (day) => salts.get(day) as string, options.geo)
    own.set(await rollup.append(instance, columns, options.now()), columns)
  }

  /**
   * The days over since the last time get their day rows; with `blocks`, closed hours' blocks become
   * one row per link (ADR 0014), a bounded step at a time, until every closed hour's are.
   */
  async function compactClosed(now: number, blocks = true): Promise<void> {
    await rollup.compactDays(now)
    if (blocks && options.compact !== false && compactedFor !== closedHour(now)) {
      if (await repo.compactBlocks(now)) compactedFor = closedHour(now)
    }
  }

  return {
    write: writeEncoded,

    async rollUp(blocks = true) {
      const now = options.now()
      const taken = new Set(own.keys())
      await rollup.rollUp(instance, own, staleBefore(now), now, blocks)
      // In blocks now, or before by another writer (then no longer in the journal): gone either way.
      if (blocks) for (const id of taken) own.delete(id)
      // After the roll-up: a visit of yesterday that it added is then in the hour rows the day is built from.
      await compactClosed(now, blocks)
    },

    async upkeep() {
      const now = options.now()
      // Alone on its database, a writer took every row at its first roll-up: none can be another's.
      // Shared, one cheap query when there is nothing to adopt, rather than a roll-up under the lock.
      if (options.shared && (await rollup.hasStale(instance, staleBefore(now)))) await rollup.rollUp(instance, own, staleBefore(now), now, false, true)
      await compactClosed(now)
    },
  }
}
