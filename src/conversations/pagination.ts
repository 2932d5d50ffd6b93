import { sql, type Expression, type SqlBool } from 'kysely'
import { bothCursors, unknownCursor } from './conversations.errors.js'
import type { PageQuery } from './conversations.schemas.js'

/** A position in a list ordered by (key desc, id desc): the key and id of the cursor's item. */
export interface Cursor {
  key: number
  id: string
}
/** `older` walks down the list (starting_after), `newer` walks up (ending_before). */
export type Direction = 'older' | 'newer'

/**
 * Rows strictly past the cursor in the direction of travel. The bound on the key alone is implied
 * by the rest; it is there so that SQLite and PostgreSQL both seek in the (…, key, id) index rather
 * than read the list from its start and filter.
 */
export function pastCursor(key: 'activity_at' | 'created_at', cursor: Cursor, direction: Direction): Expression<SqlBool> {
  const strict = sql.raw(direction === 'older' ? '<' : '>')
  const loose = sql.raw(direction === 'older' ? '<=' : '>=')
  const column = sql.ref(key)
  return sql<SqlBool>`(${column} ${loose} ${cursor.key} and (${column} ${strict} ${cursor.key} or id ${strict} ${cursor.id}))`
}

/**
 * Keyset paging for both lists. A cursor must name an item of the list (another owner's, another
 * conversation's, or a deleted one is unknown: 400). `has_more` tells whether more items follow in
 * the direction of travel. Fetches one row more than the page to know it.
 */
export async function paginate<Row>(
  query: PageQuery,
  findCursor: (id: string) => Promise<Cursor | undefined>,
  fetch: (cursor: Cursor | undefined, direction: Direction, limit: number) => Promise<Row[]>,
): Promise<{ has_more: boolean; rows: Row[] }> {
  if (query.starting_after !== undefined && query.ending_before !== undefined) throw bothCursors()
  const limit = query.limit ?? 10
  const param = query.ending_before !== undefined ? 'ending_before' : 'starting_after'
  const cursorId = query[param]
  let cursor: Cursor | undefined
  if (cursorId !== undefined) {
    cursor = await findCursor(cursorId)
    if (!cursor) throw unknownCursor(param)
  }
  const direction = param === 'ending_before' ? 'newer' : 'older'
  const rows = await fetch(cursor, direction, limit + 1)
  const page = rows.slice(0, limit)
  // Walking up fetched the rows nearest the cursor first, in ascending order: the page reads newest first.
  if (direction === 'newer') page.reverse()
  return { has_more: rows.length > limit, rows: page }
}
