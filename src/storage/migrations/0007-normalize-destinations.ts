import type { Kysely } from 'kysely'

const BATCH = 1000

interface LinksTable {
  links: { id: string; destination: string }
}

/**
 * Destinations stored before Linkline required their WHATWG serialization may hold characters that
 * no `Location` header can carry (non-Latin-1, spaces, raw newlines): rewrite each as `new URL(d).href`,
 * the form the API now stores. Walks the table by id in batches, so memory stays flat on large tables.
 */
export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as Kysely<LinksTable>
  for (let after = ''; ;) {
    const rows = await db.selectFrom('links').select(['id', 'destination']).where('id', '>', after).orderBy('id').limit(BATCH).execute()
    for (const row of rows) {
      const normalized = URL.canParse(row.destination) ? new URL(row.destination).href : row.destination
      if (normalized !== row.destination) {
        await db.updateTable('links').set({ destination: normalized }).where('id', '=', row.id).execute()
      }
    }
    if (rows.length < BATCH) return
    after = (rows[rows.length - 1] as { id: string }).id
  }
}
