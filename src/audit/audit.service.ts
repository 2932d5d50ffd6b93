import type { FastifyBaseLogger } from 'fastify'
import type { Actor } from '../shared/actor.js'
import type { Clock } from '../shared/clock.js'
import { newId } from '../shared/ids.js'
import { defaultOf } from '../shared/schema.js'
import { DAY_MS } from '../shared/time.js'
import type { Transaction } from '../storage/transaction.js'
import type { Principal } from '../tokens/tokens.service.js'
import { createAuditRepository, type AuditRepository } from './audit.repository.js'
import { ListAuditLogQuery, type AuditEntryObject } from './audit.schemas.js'
import type { AuditLogTable, AuditRow } from './audit.table.js'

/** How long the log keeps an entry (API.md §12). */
export const AUDIT_RETENTION_DAYS = 90
const DEFAULT_LIMIT = defaultOf(ListAuditLogQuery, 'limit')

/** One thing to record: `action` is `<resourceType>.<verb>` (`link.created`, `session.failed`). */
export interface AuditEntry {
  workspaceId: string
  actor: Actor
  action: string
  resourceType: string
  resourceId: string | null
}

/**
 * The seam for a service that writes its entries in the transaction of its change, so that the
 * change and its entries commit together, in one write (link creates: audit.recording.ts).
 */
export interface AuditWriter {
  record(trx: Transaction, entries: readonly AuditEntry[]): Promise<void>
  /**
   * Removes the entries of `action` about resources that a change undid after its commit (a create
   * whose domain went away meanwhile), written at `since` (epoch ms) or later.
   */
  retract(trx: Transaction, action: string, resourceIds: readonly string[], since: number): Promise<void>
}

const rowsOf = (entries: readonly AuditEntry[], at: number): AuditLogTable[] =>
  entries.map((e) => ({
    id: newId('aud'),
    at,
    workspace_id: e.workspaceId,
    actor_type: e.actor.type,
    actor_id: e.actor.id,
    actor_label: e.actor.label,
    action: e.action,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
  }))

const toObject = (row: AuditRow): AuditEntryObject => ({
  id: row.id,
  at: new Date(Number(row.at)).toISOString(),
  // Only people and tokens are ever written (a sign-in with an unknown email is not recorded).
  actor: { type: row.actor_type === 'token' ? 'token' : 'user', id: row.actor_id, label: row.actor_label },
  action: row.action,
  resourceType: row.resource_type,
  resourceId: row.resource_id,
  workspaceId: row.workspace_id,
})

export interface AuditDeps {
  repo: AuditRepository
  clock: Clock
  logger: Pick<FastifyBaseLogger, 'error'>
  /** Called when entries could not be written (a metric counts them). */
  onWriteFailed?: (entries: number) => void
}

/** The workspace's audit log (docs/api/people-and-workspaces.md#audit-log). */
export function createAuditService(deps: AuditDeps) {
  const { repo, clock, logger } = deps
  const inTransaction: AuditWriter = {
    record: (trx, entries) => createAuditRepository(trx).insert(rowsOf(entries, clock.now())),
    retract: (trx, action, resourceIds, since) => createAuditRepository(trx).deleteAbout(action, resourceIds, since),
  }

  return {
    /**
     * Writes the entries, all with the same time. Never rejects: what was recorded was already done,
     * and the caller's answer must not turn into an error because its record failed; the failure is
     * logged (with the entries, so they can be told from the log) and counted instead.
     */
    async record(entries: AuditEntry | readonly AuditEntry[]): Promise<void> {
      const list = Array.isArray(entries) ? (entries as readonly AuditEntry[]) : [entries as AuditEntry]
      if (list.length === 0) return
      try {
        await repo.insert(rowsOf(list, clock.now()))
      } catch (error) {
        deps.onWriteFailed?.(list.length)
        logger.error({ err: error, audit: list.slice(0, 10), entries: list.length }, 'could not write to the audit log; the change itself was made')
      }
    },

    /** Entries written as part of a change, in its transaction: unlike `record`, a failure fails the change. */
    inTransaction,

    /** A page of the caller's workspace's log, newest first; `nextCursor` is the last entry's id. */
    async list(principal: Principal, query: ListAuditLogQuery) {
      const limit = query.limit ?? DEFAULT_LIMIT
      const filters = { action: query.action, resourceType: query.resourceType, actorId: query.actorId }
      const rows = await repo.page(principal.ownerId, filters, query.starting_after, limit + 1)
      const page = rows.slice(0, limit)
      const hasMore = rows.length > limit
      return { data: page.map(toObject), pagination: { limit, hasMore, nextCursor: hasMore ? (page.at(-1)?.id ?? null) : null } }
    },

    /** Removes the entries older than the retention period; returns how many. */
    prune: (): Promise<number> => repo.deleteOlderThan(clock.now() - AUDIT_RETENTION_DAYS * DAY_MS),
  }
}

export type AuditService = ReturnType<typeof createAuditService>
