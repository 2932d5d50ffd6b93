import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely'
import type { Db } from '../storage/database.js'
import type { DialectAdapter } from '../storage/dialect.js'
import type { Database } from '../storage/schema.js'
import type { HealthStatus, LinkRow } from './links.table.js'

export interface LinkFilters {
  domain?: string
  path?: string
  destination?: string
  title?: string
  /** Links carrying every one of these tags. */
  tag?: readonly string[]
  /** Links whose destination health is this (column health_status). */
  health?: HealthStatus
}

/** The list's order: a column, each way; ties broken by id in the same direction. */
export interface LinkSort {
  column: 'created_at' | 'clicks' | 'last_clicked_at'
  descending: boolean
}

/** What the list selects: the filters, and `q`, a case-insensitive substring of the title, path, destination or a tag. */
export interface LinkSelection {
  filters: LinkFilters
  q?: string
}

/** Trigrams need 3 characters: a shorter `q` is looked for by a scan of the owner's links. */
export const TRIGRAM_MIN = 3
/**
 * Up to this many candidates (the links a trigram index or a tag names), the page is sorted from
 * their rows, looked up by id; beyond it, matches are common enough that walking the owner's links in
 * the page's order and testing each finds a page sooner (docs/performance.md, "The link list").
 */
export const CANDIDATES = 2000

type LinksQuery = SelectQueryBuilder<Database, 'links', LinkRow>
type Links = ExpressionBuilder<Database, 'links'>

/**
 * The link list's queries: the filters, `q` and the sorts of docs/api/links.md, one page by offset.
 * Every condition is one exact predicate, the same on every path; indexes only find the rows to test.
 */
export function createLinkList(db: Db, adapter: DialectAdapter) {
  /** The owner's live links that pass `selection`: the list's and the export's one definition. */
  function selected(selection: LinkSelection, query: LinksQuery): LinksQuery {
    const { tag: tags = [], health, ...columns } = selection.filters
    let out = query.where('deleted_at', 'is', null)
    for (const [column, value] of Object.entries(columns) as [Exclude<keyof LinkFilters, 'tag' | 'health'>, string | undefined][]) {
      if (value !== undefined) out = out.where(column, '=', value)
    }
    if (health !== undefined) out = out.where('health_status', '=', health)
    for (const tag of tags) out = out.where((eb) => eb.exists(tagged(eb).where('link_tags.tag', '=', tag)))
    const q = selection.q
    if (q !== undefined && q !== '') {
      out = out.where((eb) =>
        eb.or([
          ...(['links.title', 'links.path', 'links.destination'] as const).map((column) => adapter.containsIgnoringCase(eb.ref(column), q)),
          eb.exists(tagged(eb).where(adapter.containsIgnoringCase(sql.ref('link_tags.tag'), q))),
        ]),
      )
    }
    return out
  }
  const tagged = (eb: Links) => eb.selectFrom('link_tags').select(sql.lit(1).as('one')).whereRef('link_tags.link_id', '=', 'links.id')

  /**
   * A set of ids holding every link that `selection` selects, when one is small: the owner's links with
   * one of its tags, or (3 characters or more) those the trigram index finds for `q`; undefined when each
   * names more than CANDIDATES.
   */
  async function candidates(ownerId: string, selection: LinkSelection): Promise<string[] | undefined> {
    for (const tag of selection.filters.tag ?? []) {
      const ids = await db
        .selectFrom('link_tags')
        .select('link_id')
        .where('owner_id', '=', ownerId)
        .where('tag', '=', tag)
        .limit(CANDIDATES + 1)
        .execute()
      if (ids.length <= CANDIDATES) return ids.map((r) => r.link_id)
    }
    const q = selection.q
    if (q !== undefined && [...q].length >= TRIGRAM_MIN) {
      const ids = await adapter.searchCandidates(db, ownerId, q, CANDIDATES + 1)
      if (ids.length <= CANDIDATES) return ids
    }
    return undefined
  }

  /**
   * One page in `sort`'s order: rows [offset, offset + limit). lastClickedAt puts links never clicked
   * last both ways: the clicked ones and the others are two ranges of one index, each read in order up
   * to the page's end, then merged.
   */
  function ordered(base: () => LinksQuery, sort: LinkSort, offset: number, limit: number): Promise<LinkRow[]> {
    const direction = sort.descending ? 'desc' : 'asc'
    if (sort.column !== 'last_clicked_at') {
      return base().orderBy(sort.column, direction).orderBy('id', direction).offset(offset).limit(limit).execute()
    }
    const end = offset + limit
    const clicked = base().where('last_clicked_at', 'is not', null).orderBy('last_clicked_at', direction).orderBy('id', direction).limit(end)
    const never = base().where('last_clicked_at', 'is', null).orderBy('id', direction).limit(end)
    return db
      .selectFrom(clicked.as('clicked'))
      .selectAll()
      .select(sql.lit(0).as('never'))
      .unionAll(db.selectFrom(never.as('never')).selectAll().select(sql.lit(1).as('never')))
      .orderBy('never')
      .orderBy('last_clicked_at', direction)
      .orderBy('id', direction)
      .offset(offset)
      .limit(limit)
      .execute()
  }

  return {
    /**
     * One page of the owner's links that `selection` selects. When a tag or the trigram index names
     * few links, their rows are looked up by id and sorted; otherwise the owner's links are walked in
     * the page's order (an index per sort) and each tested, until the page is full.
     */
    async page(ownerId: string, selection: LinkSelection, sort: LinkSort, offset: number, limit: number): Promise<LinkRow[]> {
      const ids = await candidates(ownerId, selection)
      if (ids === undefined) return ordered(() => selected(selection, db.selectFrom('links').selectAll().where('owner_id', '=', ownerId)), sort, offset, limit)
      if (ids.length === 0) return []
      return ordered(
        () =>
          selected(
            selection,
            db
              .selectFrom('links')
              .selectAll()
              .where('id', 'in', ids)
              .where((eb) => eb(adapter.unindexed('owner_id'), '=', ownerId)),
          ),
        sort,
        offset,
        limit,
      )
    },

    /**
     * The page after `after` in the export's order (newest first), by keyset rather than offset: each
     * page is one range scan of the (owner_id, created_at, id) index, however deep the export is.
     */
    after(ownerId: string, filters: LinkFilters, after: { createdAt: number; id: string } | undefined, limit: number): Promise<LinkRow[]> {
      let query = selected({ filters }, db.selectFrom('links').selectAll().where('owner_id', '=', ownerId))
      if (after !== undefined) {
        // A row-value comparison, which both engines serve as one index range (an OR of the two
        // conditions made SQLite scan the owner's links from the newest for every page).
        query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)))
      }
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()
    },
  }
}
export type LinkList = ReturnType<typeof createLinkList>
