// Endpoints of the API contract (docs/api/people-and-workspaces.md) that the server's OpenAPI document,
// and so the generated client (sdk/), may not describe yet. Each entry falls out of `Paths` as soon as
// sdk/schema.d.ts has its path: from then on the generated type applies, and any difference between
// the two is a compile error here, not a surprise in a browser.
import type { components, paths } from '../../sdk/index'

type ErrorBody = components['schemas']['ErrorBody']
export type Role = 'viewer' | 'member' | 'admin' | 'owner'

type Json<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } }
type Envelope<T> = { success: true; data: T }
type Errors = { '4XX': Json<ErrorBody>; '5XX': Json<ErrorBody> }
type Params<Path, Query> = ([Path] extends [never] ? { path?: never } : { path: Path }) & { query?: Query; header?: never; cookie?: never }
type Get<Path, Query, Out> = { parameters: Params<Path, Query>; requestBody?: never; responses: { 200: Json<Out> } & Errors }
type Send<Path, Body, Status extends number, Out> = { parameters: Params<Path, never>; responses: { [S in Status]: Json<Out> } & Errors } & ([Body] extends [
  never,
]
  ? { requestBody?: never }
  : { requestBody: { content: { 'application/json': Body } } })

export interface Invitation {
  id: string
  email: string
  role: Role
  expiresAt: string
}
/** A one-time link, shown only in the response that made it. */
export interface OneTimeLink {
  url: string
  expiresAt: string
}
export interface AuditEntry {
  id: string
  at: string
  actor: { type: 'user' | 'token'; id: string; label: string }
  action: string
  resourceType: string
  resourceId: string | null
  workspaceId: string
}
export interface AuditPage extends Envelope<AuditEntry[]> {
  pagination: { limit: number; hasMore: boolean; nextCursor: string | null }
}

interface Contract {
  '/v1/invitations': {
    get: Get<never, never, Envelope<Invitation[]>>
    post: Send<never, { email: string; role: Role }, 201, Envelope<Invitation & OneTimeLink>>
  }
  '/v1/invitations/{id}': { delete: Send<{ id: string }, never, 200, Envelope<unknown>> }
  '/v1/invitations/accept': { post: Send<never, { secret: string; name?: string; password?: string }, 201, Envelope<unknown>> }
  '/v1/members/{userId}/password-reset': { post: Send<{ userId: string }, never, 201, Envelope<OneTimeLink>> }
  '/v1/password-reset': { post: Send<never, { secret: string; password: string }, 200, Envelope<unknown>> }
  '/v1/setup': { post: Send<never, { code: string; email: string; name: string; password: string }, 201, Envelope<unknown>> }
  '/v1/audit-log': { get: Get<never, { cursor?: string; limit?: number }, AuditPage> }
}

/** The generated paths, and the contract's where the generated ones are still missing. */
export type Paths = paths & Omit<Contract, keyof paths>
