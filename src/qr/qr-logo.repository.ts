import type { Db } from '../storage/database.js'
import type { WorkspaceLogoRow } from './qr-logo.table.js'

export function createQrLogoRepository(db: Db) {
  return {
    find(workspaceId: string): Promise<WorkspaceLogoRow | undefined> {
      return db.selectFrom('workspace_logos').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst()
    },

    /** Stores the logo, replacing the workspace's previous one. */
    async put(row: WorkspaceLogoRow): Promise<void> {
      const { content_type, data, bytes, digest, updated_at } = row
      await db
        .insertInto('workspace_logos')
        .values(row)
        .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ content_type, data, bytes, digest, updated_at }))
        .execute()
    },

    /** Whether there was a logo to remove. */
    async remove(workspaceId: string): Promise<boolean> {
      const result = await db.deleteFrom('workspace_logos').where('workspace_id', '=', workspaceId).executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },
  }
}
export type QrLogoRepository = ReturnType<typeof createQrLogoRepository>
