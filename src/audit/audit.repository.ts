import { chunks } from '../shared/chunks.js'
import type { Db } from '../storage/database.js'
import { inOrder, repeatedStatement } from '../storage/repeated-statement.js'
import type { AuditLogTable, AuditRow } from './audit.table.js'

/** What a page of the log may be narrowed to; each given filter is an exact match. */
export interface AuditFilters {
  action?: string
  resourceType?: string
  actorId?: string
}

// Rows per INSERT (9 values each): far below both dialects' bound-parameter limits.
const CHUNK = 500

/** Every column of an entry, in the order its repeated INSERT binds them: the object's type keeps the list whole. */
const COLUMNS = Object.keys({
  id: 0,
  at: 0,
  workspace_id: 0,
  actor_type: 0,
  actor_id: 0,
  actor_label: 0,
  action: 0,
  resource_type: 0,
  resource_id: 0,
} satisfies Record<keyof AuditLogTable, 0>) as (keyof AuditLogTable)[]
/** One entry's INSERT, compiled once (repeatedStatement): every link create writes one. */
const insertOne = repeatedStatement<AuditLogTable>(COLUMNS, 1, (db, rows) => db.insertInto('audit_log').values(rows.map((row) => inOrder(COLUMNS, row))))

export function createAuditRepository(db: Db) {
  return {
    async insert(rows: readonly AuditLogTable[]): Promise<void> {
      for (const chunk of chunks(rows, CHUNK)) await insertOne(db, chunk)
    },

    /** Removes the entries of `action` about these resources written at `since` (epoch ms) or later: the index on `at` reads only those. */
    async deleteAbout(action: string, resourceIds: readonly string[], since: number): Promise<void> {
      for (const chunk of chunks(resourceIds, CHUNK)) {
        await db.deleteFrom('audit_log').where('at', '>=', since).where('action', '=', action).where('resource_id', 'in', chunk).execute()
      }
    },

    /** One page of a workspace's log, newest first (ids are time-ordered), after the cursor's id. */
    page(workspaceId: string, filters: AuditFilters, startingAfter: string | undefined, limit: number): Promise<AuditRow[]> {
      let query = db.selectFrom('audit_log').selectAll().where('workspace_id', '=', workspaceId)
      if (filters.action !== undefined) query = query.where('action', '=', filters.action)
      if (filters.resourceType !== undefined) query = query.where('resource_type', '=', filters.resourceType)
      if (filters.actorId !== undefined) query = query.where('actor_id', '=', filters.actorId)
      if (startingAfter !== undefined) query = query.where('id', '<', startingAfter)
      return query.orderBy('id', 'desc').limit(limit).execute()
    },

    /** Removes the rows written before `before` (epoch ms); returns how many. */
    async deleteOlderThan(before: number): Promise<number> {
      return Number((await db.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst()).numDeletedRows)
    },
  }
}

export type AuditRepository = ReturnType<typeof createAuditRepository>
