import fc from 'fast-check'

/**
 * Resources the test server holds, named symbolically, for the OpenAPI fuzz test (test/openapi-arbitraries.ts):
 * a generated request says "an id of one of my links", and the test resolves it when it sends the
 * request (fixtures are re-created after a DELETE).
 */
export type Resource = 'links' | 'conversations' | 'messages' | 'domains' | 'tokens' | 'webhooks' | 'deliveries' | 'members'
export type Owner = 'own' | 'other' | 'missing' | 'default'

export class Fixture {
  constructor(
    readonly resource: Resource,
    readonly owner: Owner,
    /** Named in a body or query field rather than in the path. */
    readonly inField = false,
  ) {}
  toString(): string {
    return `<${this.owner} ${this.resource}>`
  }
  toJSON(): string {
    return this.toString()
  }
}

export type Resolve = (fixture: Fixture) => string

export const fixture = (resource: Resource, owners: Owner[] = ['own', 'other', 'missing'], inField = false) =>
  fc.constantFrom(...owners).map((owner) => new Fixture(resource, owner, inField))

/** The resource a path parameter names: the collection segment just before it (`/links/{id}` → links). */
export function resourceOfPathParam(template: string, name: string): Resource | undefined {
  const segments = template.split('/')
  const at = segments.indexOf(`{${name}}`)
  const collection = segments[at - 1]
  return (['links', 'conversations', 'messages', 'domains', 'tokens', 'webhooks', 'deliveries', 'members'] as const).find((r) => r === collection)
}
