import type { MembershipsTable, OneTimeLinksTable, UsersTable, WorkspacesTable } from '../accounts/accounts.table.js'
import type { AuditLogTable } from '../audit/audit.table.js'
import type { ConversationsTable, MessagesTable } from '../conversations/conversations.table.js'
import type { DomainsTable } from '../domains/domains.table.js'
import type { IdempotencyKeysTable } from '../idempotency/idempotency.table.js'
import type { HealthLeasesTable } from '../health/health.table.js'
import type { LinkSearchPendingTable, LinkSearchRowsTable, LinksTable, LinkTagsTable } from '../links/links.table.js'
import type { SessionsTable } from '../sessions/sessions.table.js'
import type { TokensTable } from '../tokens/tokens.table.js'
import type { WebhookDeliveriesTable, WebhooksTable } from '../webhooks/webhooks.table.js'
import type {
  ClickBlocksTable,
  ClickJournalMarksTable,
  ClickJournalTable,
  ClickSaltsTable,
  FacetsCompactionTable,
  LinkClickFacetsTable,
  LinkClickRollupsTable,
  LinkDailyVisitorsTable,
  WorkspaceClickDaysTable,
  WorkspaceClickRollupsTable,
} from '../stats/stats.table.js'
import type { MissingPathVisitsTable } from '../stats/missing-paths.table.js'
import type { WorkspaceLogosTable } from '../qr/qr-logo.table.js'

/** Every table, as Kysely sees it. Each feature owns its `*.table.ts`. */
export interface Database {
  tokens: TokensTable
  domains: DomainsTable
  links: LinksTable
  link_tags: LinkTagsTable
  link_search_rows: LinkSearchRowsTable
  link_search_pending: LinkSearchPendingTable
  idempotency_keys: IdempotencyKeysTable
  conversations: ConversationsTable
  messages: MessagesTable
  click_journal: ClickJournalTable
  click_journal_marks: ClickJournalMarksTable
  click_blocks: ClickBlocksTable
  link_click_rollups: LinkClickRollupsTable
  link_click_facets: LinkClickFacetsTable
  facets_compaction: FacetsCompactionTable
  link_daily_visitors: LinkDailyVisitorsTable
  workspace_click_rollups: WorkspaceClickRollupsTable
  workspace_click_days: WorkspaceClickDaysTable
  click_salts: ClickSaltsTable
  sessions: SessionsTable
  webhooks: WebhooksTable
  webhook_deliveries: WebhookDeliveriesTable
  workspaces: WorkspacesTable
  users: UsersTable
  memberships: MembershipsTable
  one_time_links: OneTimeLinksTable
  audit_log: AuditLogTable
  missing_path_visits: MissingPathVisitsTable
  health_leases: HealthLeasesTable
  workspace_logos: WorkspaceLogosTable
}
