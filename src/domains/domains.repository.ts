import type { Db } from '../storage/database.js'
import type { DomainRow } from './domains.table.js'

export function createDomainsRepository(db: Db) {
  return {
    async insert(row: DomainRow): Promise<void> {
      await db.insertInto('domains').values(row).execute()
    },
    find: (name: string): Promise<DomainRow | undefined> =>
      db.selectFrom('domains').selectAll().where('name', '=', name).executeTakeFirst(),
    listByOwner: (ownerId: string): Promise<DomainRow[]> =>
      db.selectFrom('domains').selectAll().where('owner_id', '=', ownerId).orderBy('name').execute(),
    allNames: async (): Promise<string[]> =>
      (await db.selectFrom('domains').select('name').execute()).map((r) => r.name),
    async delete(ownerId: string, name: string): Promise<boolean> {
      const r = await db.deleteFrom('domains').where('owner_id', '=', ownerId).where('name', '=', name).executeTakeFirst()
      return Number(r.numDeletedRows) > 0
    },
    async isInUse(name: string): Promise<boolean> {
      return (await db.selectFrom('links').select('id').where('domain', '=', name).limit(1).executeTakeFirst()) !== undefined
    },
  }
}
export type DomainsRepository = ReturnType<typeof createDomainsRepository>
