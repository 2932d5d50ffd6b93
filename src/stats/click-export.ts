import { blockClicks, type ExportedClick, type StatsRepository } from './stats.repository.js'

/** Block heads read per page: more than the blocks of one instant (one per instance that wrote its visits) ever are. */
const HEADS = 64

/**
 * One page of the clicks export: the link's visits in [at, until), oldest first, from the blocks that
 * may hold them, taken in (start_at, id) order until about `budget` visits (at least every block that
 * began by `at`, so that `until` moves on). Visits of one millisecond keep the order of their blocks.
 * `until` is where the first block not taken begins (`to` when none is left): no block not read holds
 * a visit before it. Undefined when a block was replaced between its head and its visits (a
 * compaction): the caller reads the page again.
 */
export async function exportPage(
  repo: StatsRepository,
  linkId: string,
  at: number,
  to: number,
  budget: number,
): Promise<{ clicks: ExportedClick[]; until: number } | undefined> {
  let limit = HEADS
  let heads = await repo.blockHeads(linkId, at, to, limit)
  // Every block that began by `at` must be in the page.
  while (heads.length === limit && (heads.at(-1) as (typeof heads)[number]).startAt <= at) heads = await repo.blockHeads(linkId, at, to, (limit *= 2))
  let taken = 0
  let visits = 0
  while (taken < heads.length) {
    const head = heads[taken] as (typeof heads)[number]
    if (head.startAt > at && visits > 0 && visits + head.clicks > budget) break
    visits += head.clicks
    taken++
  }
  const more = taken < heads.length ? heads[taken] : undefined
  // All heads taken from a full read: the next block may begin where the last taken one does.
  const until = more !== undefined ? more.startAt : heads.length < limit ? to : (heads.at(-1) as (typeof heads)[number]).startAt
  const ids = heads.slice(0, taken).map((h) => h.id)
  const rows = await repo.blockRows(ids)
  if (rows.size < ids.length) return undefined
  const clicks: ExportedClick[] = []
  for (const id of ids)
    for (const c of blockClicks(rows.get(id) as NonNullable<ReturnType<typeof rows.get>>))
      if (c.clickedAt >= at && c.clickedAt < until && c.clickedAt < to) clicks.push(c)
  // A stable sort: visits of one millisecond in several blocks keep the blocks' order.
  clicks.sort((x, y) => x.clickedAt - y.clickedAt)
  return { clicks, until: Math.min(until, to) }
}
