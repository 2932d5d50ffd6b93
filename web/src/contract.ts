// Endpoints of the API contract (docs/api/people-and-workspaces.md) that the server's OpenAPI document,
// and so the generated client (sdk/), may not describe yet: today the audit log. Each entry falls out
// of `Paths` as soon as sdk/schema.d.ts has its path: from then on the generated type applies, and any
// difference between the two is a compile error here, not a surprise in a browser.
import type { components, paths } from '../../sdk/index'

type Json<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } }
type Errors = { '4XX': Json<components['schemas']['ErrorBody']>; '5XX': Json<components['schemas']['ErrorBody']> }

export interface AuditEntry {
  id: string
  at: string
  actor: { type: 'user' | 'token'; id: string; label: string }
  action: string
  resourceType: string
  resourceId: string | null
  workspaceId: string
}
interface AuditPage {
  success: true
  data: AuditEntry[]
  pagination: { limit: number; hasMore: boolean; nextCursor: string | null }
}

interface Contract {
  '/v1/audit-log': {
    get: {
      parameters: { query?: { limit?: number; starting_after?: string }; header?: never; path?: never; cookie?: never }
      requestBody?: never
      responses: { 200: Json<AuditPage> } & Errors
    }
  }
}

/** The generated paths, and the contract's where the generated ones are still missing. */
export type Paths = paths & Omit<Contract, keyof paths>
