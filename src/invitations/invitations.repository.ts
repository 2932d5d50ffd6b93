import type { Insertable } from 'kysely'
import type { OneTimeLinkKind, OneTimeLinkRow, OneTimeLinksTable } from '../accounts/accounts.table.js'
import type { Db } from '../storage/database.js'

export type NewOneTimeLinkRow = Insertable<OneTimeLinksTable>

/** One-time links (invitations, password resets, setup): the `one_time_links` table. */
export function createOneTimeLinksRepository(db: Db) {
  /** Links that can still be used at `now`: neither used, revoked nor expired. */
  const pending = (now: number) =>
    db.selectFrom('one_time_links').selectAll().where('used_at', 'is', null).where('revoked_at', 'is', null).where('expires_at', '>', now)

  return {
    async insert(row: NewOneTimeLinkRow): Promise<void> {
      await db.insertInto('one_time_links').values(row).execute()
    },
    findByHash: (hash: string): Promise<OneTimeLinkRow | undefined> =>
      db.selectFrom('one_time_links').selectAll().where('secret_hash', '=', hash).executeTakeFirst(),
    findPending: (id: string, workspaceId: string, kind: OneTimeLinkKind, now: number): Promise<OneTimeLinkRow | undefined> =>
      pending(now).where('id', '=', id).where('workspace_id', '=', workspaceId).where('kind', '=', kind).executeTakeFirst(),
    listPending: (workspaceId: string, kind: OneTimeLinkKind, now: number): Promise<OneTimeLinkRow[]> =>
      pending(now).where('workspace_id', '=', workspaceId).where('kind', '=', kind).orderBy('created_at', 'desc').orderBy('id', 'desc').execute(),

    /**
     * Marks a link used if it still can be: one conditional statement, so of two requests racing with
     * one secret exactly one changes the row. Returns whether this one did.
     */
    async claim(id: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('one_time_links')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    /**
     * Marks every usable setup link of a workspace used at once, returning their ids: two setup links
     * used together (two instances each printed one) cannot both create a first owner.
     */
    async claimSetup(workspaceId: string, now: number): Promise<string[]> {
      const rows = await db
        .updateTable('one_time_links')
        .set({ used_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('kind', '=', 'setup')
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .returning('id')
        .execute()
      return rows.map((r) => r.id)
    },

    /** Revokes one link, if it still can be used; returns whether it did. */
    async revoke(id: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('one_time_links')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    /** Revokes a person's usable links of a kind (an earlier password reset); returns how many. */
    async revokeForUser(kind: OneTimeLinkKind, userId: string, now: number): Promise<number> {
      const result = await db
        .updateTable('one_time_links')
        .set({ revoked_at: now })
        .where('kind', '=', kind)
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows)
    },
  }
}

export type OneTimeLinksRepository = ReturnType<typeof createOneTimeLinksRepository>
