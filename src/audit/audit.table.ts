import type { Selectable } from 'kysely'

/** One thing done through the API or a sign-in (docs/api/people-and-workspaces.md#audit-log); kept 90 days. */
export interface AuditLogTable {
  /** `aud_…`, time-ordered: the page order. */
  id: string
  at: number
  workspace_id: string
  actor_type: 'user' | 'token' | 'anonymous'
  actor_id: string
  actor_label: string
  /** `link.created`, `member.role_changed`, `session.failed`… */
  action: string
  resource_type: string
  resource_id: string | null
}

export type AuditRow = Selectable<AuditLogTable>
