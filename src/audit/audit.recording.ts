import type { FastifyRequest } from 'fastify'
import type { App } from '../http/types.js'
import type { AuditEntry, AuditService } from './audit.service.js'

/**
 * What a state-changing `/v1` route records in the audit log (its `config.audit`): one entry
 * `<resource>.<verb>` per successful request, naming the caller and the resource.
 */
export interface AuditDeclaration {
  /** The resource type: `link`, `domain`, `member`… */
  readonly resource: string
  /**
   * The verb after the dot; by default the method's: POST `created`, PUT and PATCH `updated`, DELETE
   * `deleted`. A map picks it by the answer's status (a status it leaves out takes the method's); `null`
   * for an answer that changed nothing (a get-or-create that found the conversation): nothing is recorded.
   */
  readonly action?: string | Readonly<Record<number, string | null>>
  /**
   * Where the resource's id is: the name of a route parameter, else of a field of the answer's data
   * (`name` for a domain, `userId` for a member); or a function of the request. By default the
   * answer's `id`, else the `id` parameter.
   */
  readonly id?: string | ((req: FastifyRequest) => string | undefined)
  /**
   * The answer's data is a list of per-item results (bulk routes): one entry for each item that
   * succeeded (neither `ok` nor `deleted` false), with its `id` or that of its `<resource>` object.
   */
  readonly each?: true
}

/**
 * A route whose service writes its entries in the transaction of the change itself, and where: the
 * change and its entries commit together, in one write instead of a second one before the answer
 * (link creates, the busiest writes). Such an entry is never lost when the change is kept; a failure
 * to write it fails the change.
 */
export interface AuditWrittenWithChange {
  readonly writtenWith: string
}

/** A route that changes state but is recorded elsewhere or not at all, and why (signing in records its own entries). */
export interface AuditSkipped {
  readonly skip: string
}

export type AuditConfig = AuditDeclaration | AuditWrittenWithChange | AuditSkipped

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route records in the audit log; every route that changes state says (audit.test.ts checks). */
    audit?: AuditConfig
  }
}

const VERBS: Readonly<Record<string, string>> = { POST: 'created', PUT: 'updated', PATCH: 'updated', DELETE: 'deleted' }

type Fields = Readonly<Record<string, unknown>>
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value)
const stringField = (value: unknown, name: string) => (isObject(value) && typeof value[name] === 'string' ? value[name] : undefined)

/** The answer's data: inside the `{success, data}` envelope, or the object itself (conversations answer unwrapped). */
function dataOf(payload: unknown): unknown {
  if (typeof payload !== 'string') return undefined
  try {
    const body: unknown = JSON.parse(payload)
    return isObject(body) && body.success === true ? body.data : body
  } catch {
    return undefined
  }
}

function verbOf(declaration: AuditDeclaration, method: string, status: number): string | null | undefined {
  const { action } = declaration
  if (typeof action === 'string') return action
  if (action !== undefined && status in action) return action[status]
  return VERBS[method]
}

/** The ids the answer is about: one, or one per succeeded item of a bulk answer. */
function resourceIds(declaration: AuditDeclaration, req: FastifyRequest, payload: unknown): (string | null)[] {
  const { id, resource } = declaration
  if (typeof id === 'function') return [id(req) ?? null]
  const params = (req.params ?? {}) as Readonly<Record<string, string | undefined>>
  if (id !== undefined && params[id] !== undefined) return [params[id]]
  const data = dataOf(payload)
  if (declaration.each) {
    if (!Array.isArray(data)) return []
    return data
      .filter((item) => isObject(item) && item.ok !== false && item.deleted !== false)
      .map((item: Fields) => stringField(item, 'id') ?? stringField(item[resource], 'id') ?? null)
  }
  return [stringField(data, id ?? 'id') ?? params.id ?? null]
}

/** Declarations by `METHOD url`, per app: the test that every state-changing route declares one reads them. */
const declarations = new WeakMap<App, Map<string, AuditConfig | undefined>>()
export const auditDeclarationsOf = (app: App): ReadonlyMap<string, AuditConfig | undefined> => declarations.get(app) ?? new Map()

/**
 * Records every successful change made through the API, from the route's `config.audit`. It runs in
 * onSend and is awaited there: the entry is written before the answer leaves, so a change the client
 * saw acknowledged has its entry (unless writing it failed, which is logged and counted but does not
 * turn the answer into an error; the change was already made). Idempotent replays are not recorded
 * again: the first answer was. Must be registered before the routes.
 */
export function registerAuditTrail(app: App, audit: AuditService): void {
  const declared = new Map<string, AuditConfig | undefined>()
  declarations.set(app, declared)
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) declared.set(`${method} ${route.url}`, route.config?.audit)
  })

  app.addHook('onSend', async (req, reply, payload) => {
    const declaration = req.routeOptions.config.audit
    if (declaration === undefined || !('resource' in declaration)) return payload
    const principal = req.principal
    const actor = principal?.actor
    const status = reply.statusCode
    if (!principal || !actor || status < 200 || status > 299 || reply.hasHeader('Idempotent-Replayed')) return payload
    const verb = verbOf(declaration, req.method, status)
    if (!verb) return payload
    const entries = resourceIds(declaration, req, payload).map((resourceId): AuditEntry => ({
      workspaceId: principal.ownerId,
      actor,
      action: `${declaration.resource}.${verb}`,
      resourceType: declaration.resource,
      resourceId,
    }))
    await audit.record(entries)
    return payload
  })
}
