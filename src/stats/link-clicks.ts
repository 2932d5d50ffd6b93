import { sql, type Compilable, type RawBuilder } from 'kysely'
import { chunks } from '../shared/chunks.js'
import { repeatedStatement } from '../storage/repeated-statement.js'
import type { Transaction } from '../storage/transaction.js'
import type { Db } from '../storage/database.js'
import type { LinkTally } from './rollup.tally.js'
import type { Statements } from './rollup.repository.js'

/*
 * The roll-up's writes to the link list's counters (links.clicks, links.last_clicked_at), in its
 * transaction: the same statement tells it which links were deleted since their visits.
 */

/** Links per statement (3 values each). */
const CHUNK = 1000

/** What one roll-up adds to a link's own counters (links.clicks, links.last_clicked_at). */
interface LinkClicks {
  id: string
  clicks: number
  last_at: number
}

/** A link not deleted, and its workspace. */
interface LiveLink {
  id: string
  owner_id: string
}

/**
 * One UPDATE … FROM a list of values (SQLite 3.33+, PostgreSQL), each cast so PostgreSQL reads no
 * parameter as text; it returns the links it found live, so that no SELECT needs to look for them.
 */
const addLinkClicks = (rows: readonly LinkClicks[]) =>
  sql<LiveLink>`with counted (id, clicks, last_at) as (values ${sql.join(rows.map((r) => sql`(${r.id}, cast(${r.clicks} as bigint), cast(${r.last_at} as bigint))`))})
  update links set
    clicks = links.clicks + counted.clicks,
    last_clicked_at = case when counted.last_at > coalesce(links.last_clicked_at, 0) then counted.last_at else links.last_clicked_at end
  from counted where links.id = counted.id and links.deleted_at is null
  returning links.id, links.owner_id`

/** A raw statement compiled for `db`'s dialect, as repeatedStatement takes queries. */
const compilable = <Out>(db: Db, statement: RawBuilder<Out>): Compilable<Out> => ({ compile: () => statement.compile(db) })

/** The counters' multi-row UPDATE, compiled once for full chunks (rollupStatements). */
export const linkClicksStatement = () =>
  repeatedStatement<LinkClicks, LiveLink>(['id', 'clicks', 'last_at'], CHUNK, (trx, rows) => compilable(trx, addLinkClicks(rows)))

/**
 * Adds each link's human visits of the roll-up to the list's `clicks` and `lastClickedAt`, and drops
 * the links deleted since their visits (not a reason to fail the roll-up): the UPDATE finds the live
 * links it counts, a SELECT those without human visits. Returns the workspace of each link kept.
 */
export async function writeLinkClicks(trx: Transaction, statements: Statements, links: Map<string, LinkTally>): Promise<Map<string, string>> {
  const live = new Map<string, string>()
  const counted: LinkClicks[] = []
  const others: string[] = []
  for (const [id, link] of links) {
    if (link.human > 0) counted.push({ id, clicks: link.human, last_at: link.lastHuman as number })
    else others.push(id)
  }
  for (const chunk of chunks(counted, CHUNK)) for (const r of await statements.linkClicks(trx, chunk)) live.set(r.id, r.owner_id)
  for (const ids of chunks(others, CHUNK)) {
    const rows = await trx.selectFrom('links').select(['id', 'owner_id']).where('id', 'in', ids).where('deleted_at', 'is', null).execute()
    for (const r of rows) live.set(r.id, r.owner_id)
  }
  for (const id of links.keys()) if (!live.has(id)) links.delete(id)
  return live
}
