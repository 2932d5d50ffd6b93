import { chunks } from '../shared/chunks.js'
import type { Db } from '../storage/database.js'
import type { Transaction } from '../storage/transaction.js'
import { CHUNK } from './rollup.repository.js'
import { VISIT_FIELDS, type VisitColumns } from './visit-columns.js'

/**
 * The click journal's SQL (click-rollup.ts decides when): batches appended one row each, taken by a
 * roll-up, and each writer's mark (the last of its rows counted while they wait for their blocks).
 */

export async function appendBatch(trx: Transaction, row: { id: string; instance: string; now: number; batch: VisitColumns }): Promise<void> {
  const { id, instance, now, batch } = row
  await trx
    .insertInto('click_journal')
    .values({ id, instance, created_at: now, visits: batch.visits.length / VISIT_FIELDS, data: JSON.stringify(batch) })
    .execute()
}

/** The rows a roll-up takes, oldest first: `instance`'s and other writers' older than `staleBefore`, or (`staleOnly`) only the latter. */
export async function journalRows(trx: Transaction, instance: string, staleBefore: number, staleOnly: boolean): Promise<{ id: string; instance: string }[]> {
  return trx
    .selectFrom('click_journal')
    .select(['id', 'instance'])
    .where((eb) =>
      staleOnly
        ? eb.and([eb('instance', '<>', instance), eb('created_at', '<', staleBefore)])
        : eb.or([eb('instance', '=', instance), eb('created_at', '<', staleBefore)]),
    )
    .orderBy('id')
    .execute()
}

/** Writer → the last of its rows already counted. */
export async function marksOf(trx: Transaction, writers: readonly string[]): Promise<Map<string, string>> {
  const rows = await trx.selectFrom('click_journal_marks').selectAll().where('instance', 'in', writers).execute()
  return new Map(rows.map((r) => [r.instance, r.rolled_through]))
}

/** The batches of journal rows by id: this writer's from `own`, the others (and any `own` lacks) parsed from the journal. */
export async function batchesOf(
  trx: Transaction,
  instance: string,
  own: ReadonlyMap<string, VisitColumns>,
  rows: readonly { id: string; instance: string }[],
): Promise<Map<string, VisitColumns>> {
  const batches = new Map<string, VisitColumns>()
  const foreign: string[] = []
  for (const r of rows) {
    const batch = r.instance === instance ? own.get(r.id) : undefined
    if (batch === undefined) foreign.push(r.id)
    else batches.set(r.id, batch)
  }
  for (const ids of chunks(foreign, 100)) {
    for (const r of await trx.selectFrom('click_journal').select(['id', 'data']).where('id', 'in', ids).execute())
      batches.set(r.id, JSON.parse(r.data) as VisitColumns)
  }
  return batches
}

/** Deletes rows put in click blocks. */
export async function deleteRows(trx: Transaction, ids: readonly string[]): Promise<void> {
  for (const chunk of chunks(ids, CHUNK)) await trx.deleteFrom('click_journal').where('id', 'in', chunk).execute()
}

/** `instance`'s rows up to `through` are counted. */
export async function setMark(trx: Transaction, instance: string, through: string): Promise<void> {
  await trx
    .insertInto('click_journal_marks')
    .values({ instance, rolled_through: through })
    .onConflict((oc) => oc.column('instance').doUpdateSet({ rolled_through: through }))
    .execute()
}

/** Drops the marks of `writers` that have no row left. */
export async function dropEmptyMarks(trx: Transaction, writers: readonly string[]): Promise<void> {
  await trx
    .deleteFrom('click_journal_marks')
    .where('instance', 'in', writers)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('click_journal').select('click_journal.id').whereRef('click_journal.instance', '=', 'click_journal_marks.instance'))),
    )
    .execute()
}

/** Whether the journal holds rows of another writer than `instance` older than `staleBefore`. */
export async function hasStaleRows(db: Db, instance: string, staleBefore: number): Promise<boolean> {
  const row = await db
    .selectFrom('click_journal')
    .select('id')
    .where('instance', '<>', instance)
    .where('created_at', '<', staleBefore)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}
