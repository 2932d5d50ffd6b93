import type { Db } from '../storage/database.js'
import { DAY_MS, dayOf } from './classify.js'
import { facetsCompactedBefore } from './rollup.repository.js'

/**
 * Where the breakdowns of the hours in [from, to) are read: the whole UTC days that have their day rows
 * (those before the compaction's watermark: click-rollup.ts, compactDays), and the hours before and
 * after them from their hour rows. Each part is one plain range scan of a primary key (an OR of ranges
 * would scan every row of the link or workspace). Empty spans are left out.
 */
export async function facetSpans(db: Db, from: number, to: number): Promise<{ days: [number, number] | undefined; hours: [number, number][] }> {
  const firstDay = dayOf(from + DAY_MS - 1)
  const endDay = Math.max(firstDay, Math.min(dayOf(to), await facetsCompactedBefore(db)))
  if (firstDay >= endDay) return { days: undefined, hours: from < to ? [[from, to]] : [] }
  const hours = (
    [
      [from, firstDay],
      [endDay, to],
    ] as [number, number][]
  ).filter(([start, end]) => start < end)
  return { days: [firstDay, endDay], hours }
}
