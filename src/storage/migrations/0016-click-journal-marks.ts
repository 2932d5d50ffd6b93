import type { Kysely } from 'kysely'

/**
 * `click_journal_marks`: a writer's journal rows with an id up to `rolled_through` are counted in the
 * statistics and wait only for their click blocks (the export), which a later roll-up writes for the
 * visits of many roll-ups at once (ADR 0009). The journal rows stay
 * until then; the mark, in the same transaction as the counts, is what keeps a writer that takes them
 * over (the next process, or another instance once they are stale) from counting them again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('click_journal_marks')
    .addColumn('instance', 'text', (c) => c.primaryKey())
    .addColumn('rolled_through', 'text', (c) => c.notNull())
    .execute()
}
