import { sql, type Kysely } from 'kysely'
import { newId } from '../../shared/ids.js'
import { HOUR_MS, floorTo } from '../../shared/time.js'
import { BLOCK_FIELDS, encodeBlock, ProfileTable } from '../../stats/visit-columns.js'

/** Rows read per query while copying. */
const PAGE = 10_000

/** The tables this migration replaces, as they were. */
export interface TablesBefore {
  clicks: {
    link_id: string
    clicked_at: number
    is_bot: number
    is_qr: number
    referrer: string | null
    browser: string | null
    os: string | null
    device: string | null
    country: string | null
    visitor_key: string
  }
  link_click_breakdowns: { link_id: string; granularity: string; period_start: number; dimension: string; value: string; clicks: number }
}
type Old = TablesBefore & {
  click_blocks: { id: string; link_id: string; start_at: number; end_at: number; clicks: number; data: string }
  link_click_facets: { link_id: string; granularity: string; period_start: number; counts: string }
}

/**
 * Visits are aggregated in memory before they reach the database (docs/performance.md, "The click pipeline"):
 * - `click_journal`: each flush appends one row holding the whole batch, classified, in columns; a
 *   roll-up every few seconds turns the journal into the tables below and deletes it, in one transaction.
 * - `click_blocks` replaces `clicks`: the raw visits the export reads, one row per link and roll-up
 *   instead of one per visit with two indexes.
 * - `link_click_facets` replaces `link_click_breakdowns`: one row per link and hour or day holding
 *   every dimension's counts, instead of one row per dimension and value.
 * The rows of the two old tables are copied into the new ones, counts unchanged.
 */
export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as Kysely<Old>
  await db.schema
    .createTable('click_journal')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('visits', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createTable('click_blocks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('start_at', 'bigint', (c) => c.notNull())
    .addColumn('end_at', 'bigint', (c) => c.notNull())
    .addColumn('clicks', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('click_blocks_link_start').on('click_blocks').columns(['link_id', 'start_at']).execute()
  // Retention deletes whole blocks once their newest visit is past it.
  await db.schema.createIndex('click_blocks_end').on('click_blocks').column('end_at').execute()
  await db.schema
    .createTable('link_click_facets')
    .addColumn('link_id', 'text', (c) => c.notNull().references('links.id').onDelete('cascade'))
    .addColumn('granularity', 'text', (c) => c.notNull())
    .addColumn('period_start', 'bigint', (c) => c.notNull())
    .addColumn('counts', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('link_click_facets_pk', ['link_id', 'granularity', 'period_start'])
    .execute()

  await copyClicks(db)
  await copyBreakdowns(db)
  await db.schema.dropTable('clicks').execute()
  await db.schema.dropTable('link_click_breakdowns').execute()
}

/** Every link's raw clicks into one block per link and hour, through the (link_id, clicked_at) index. */
async function copyClicks(db: Kysely<Old>): Promise<void> {
  const links = await db.selectFrom('clicks').select('link_id').distinct().execute()
  for (const { link_id: linkId } of links) {
    // The hour's visits as (time, profile number) pairs, in time order.
    let block: { hour: number; pairs: number[]; profiles: ProfileTable } | undefined
    const flush = async () => {
      if (block === undefined) return
      const { pairs, profiles } = block
      await db
        .insertInto('click_blocks')
        .values({
          id: newId('blk'),
          link_id: linkId,
          start_at: pairs[0] as number,
          end_at: pairs.at(-BLOCK_FIELDS) as number,
          clicks: pairs.length / BLOCK_FIELDS,
          data: JSON.stringify(encodeBlock(pairs, profiles.list)),
        })
        .execute()
      block = undefined
    }
    for (let after = -1; ;) {
      const page = await db
        .selectFrom('clicks')
        .selectAll()
        .where('link_id', '=', linkId)
        .where('clicked_at', '>', after)
        .orderBy('clicked_at')
        .limit(PAGE)
        .execute()
      // A page ends on a whole millisecond: the rest of its last one is read in full (a handful of rows).
      const last = page.at(-1)?.clicked_at
      const rows =
        page.length < PAGE || last === undefined
          ? page
          : [
              ...page.filter((r) => Number(r.clicked_at) < Number(last)),
              ...(await db.selectFrom('clicks').selectAll().where('link_id', '=', linkId).where('clicked_at', '=', last).execute()),
            ]
      for (const r of rows) {
        const at = Number(r.clicked_at)
        if (block !== undefined && block.hour !== floorTo(at, HOUR_MS)) await flush()
        block ??= { hour: floorTo(at, HOUR_MS), pairs: [], profiles: new ProfileTable() }
        const profile = { bot: r.is_bot === 1, qr: r.is_qr === 1, referrer: r.referrer, browser: r.browser, os: r.os, device: r.device, country: r.country }
        block.pairs.push(at, block.profiles.id(profile))
      }
      if (page.length < PAGE || last === undefined) break
      after = Number(last)
    }
    await flush()
  }
}

/** Breakdown rows, one per dimension and value, into one facets row per link and period (read in key order). */
async function copyBreakdowns(db: Kysely<Old>): Promise<void> {
  type Key = { link_id: string; granularity: string; period_start: number }
  let current: (Key & { counts: Record<string, Record<string, number>> }) | undefined
  const write = async () => {
    if (current === undefined) return
    await db
      .insertInto('link_click_facets')
      .values({ link_id: current.link_id, granularity: current.granularity, period_start: current.period_start, counts: JSON.stringify(current.counts) })
      .execute()
  }
  let after: (Key & { dimension: string; value: string }) | undefined
  for (;;) {
    let query = db.selectFrom('link_click_breakdowns').selectAll()
    // A row-value comparison: both databases walk the primary key from there.
    if (after !== undefined) {
      const a = after
      query = query.where(
        sql<boolean>`(link_id, granularity, period_start, dimension, value) > (${a.link_id}, ${a.granularity}, ${a.period_start}, ${a.dimension}, ${a.value})`,
      )
    }
    const rows = await query.orderBy('link_id').orderBy('granularity').orderBy('period_start').orderBy('dimension').orderBy('value').limit(PAGE).execute()
    for (const r of rows) {
      const period = Number(r.period_start)
      if (current === undefined || current.link_id !== r.link_id || current.granularity !== r.granularity || current.period_start !== period) {
        await write()
        current = { link_id: r.link_id, granularity: r.granularity, period_start: period, counts: {} }
      }
      const values = (current.counts[r.dimension] ??= {})
      values[r.value] = Number(r.clicks)
    }
    if (rows.length < PAGE) break
    after = rows.at(-1)
  }
  await write()
}
