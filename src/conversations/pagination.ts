import { defaultOf } from '../shared/schema.js'
import { bothCursors, unknownCursor } from './conversations.errors.js'
import { ListMessagesQuery, type PageQuery } from './conversations.schemas.js'

/** Both lists page by the same parameters (PageParams), with one default. */
const DEFAULT_LIMIT = defaultOf(ListMessagesQuery, 'limit')

/** A position in a list ordered by (key desc, id desc): the key and id of the cursor's item. */
export interface Cursor {
  key: number
  id: string
}
/** `older` walks down the list (starting_after), `newer` walks up (ending_before). */
export type Direction = 'older' | 'newer'

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
  const limit = query.limit ?? DEFAULT_LIMIT
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
