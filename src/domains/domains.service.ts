import type { Clock } from '../shared/clock.js'
import { isUniqueViolation } from '../storage/errors.js'
import type { Principal } from '../tokens/tokens.service.js'
import {
  defaultDomainNotDeletable,
  domainInUse,
  domainNotAllowed,
  domainNotFound,
  domainTaken,
} from './domains.errors.js'
import type { DomainsRepository } from './domains.repository.js'

export interface DomainObject {
  name: string
  isDefault: boolean
  createdAt: string | null
}

export function createDomainsService(deps: {
  repo: DomainsRepository
  defaults: readonly string[]
  clock: Clock
  /** Told whenever the set of custom domains changes, so that redirect caches (on every instance) can follow. */
  onChange?: () => Promise<void>
}) {
  const { repo, defaults, clock } = deps
  const defaultSet = new Set(defaults)
  const primary = defaults[0] as string
  // Every custom domain name, held in memory so that the redirect resolves a Host without a query.
  let custom = new Set<string>()

  return {
    primary,
    /** (Re)loads the custom domains; tells whether the set changed. */
    async load(): Promise<boolean> {
      const next = new Set(await repo.allNames())
      const changed = next.size !== custom.size || [...next].some((name) => !custom.has(name))
      custom = next
      return changed
    },

    /** The domain a redirect for this Host resolves against: the host itself when known, else the primary. */
    effectiveHost(host: string): string {
      return defaultSet.has(host) || custom.has(host) ? host : primary
    },
    isDefault: (name: string) => defaultSet.has(name),
    /** Whether `name` is a default or a custom domain: links on any other one answer 404. */
    isKnown: (name: string) => defaultSet.has(name) || custom.has(name),

    /** The domain a new or moved link of this owner gets; throws 400 on a domain it may not use. */
    async resolveForOwner(principal: Principal, domain: string | undefined): Promise<string> {
      if (domain === undefined) return primary
      const name = domain.toLowerCase()
      if (defaultSet.has(name)) return name
      const row = await repo.find(name)
      if (row?.owner_id !== principal.ownerId) throw domainNotAllowed(domain)
      return name
    },

    async list(principal: Principal): Promise<DomainObject[]> {
      const own = await repo.listByOwner(principal.ownerId)
      return [
        ...defaults.map((name) => ({ name, isDefault: true, createdAt: null })),
        ...own.map((r) => ({ name: r.name, isDefault: false, createdAt: new Date(r.created_at).toISOString() })),
      ]
    },

    async create(principal: Principal, rawName: string): Promise<DomainObject> {
      const name = rawName.toLowerCase()
      if (defaultSet.has(name)) throw domainTaken(name)
      const createdAt = clock.now()
      try {
        await repo.insert({ name, owner_id: principal.ownerId, created_at: createdAt })
      } catch (error) {
        if (isUniqueViolation(error)) throw domainTaken(name)
        throw error
      }
      custom.add(name)
      await deps.onChange?.()
      return { name, isDefault: false, createdAt: new Date(createdAt).toISOString() }
    },

    async delete(principal: Principal, rawName: string): Promise<void> {
      const name = rawName.toLowerCase()
      if (defaultSet.has(name)) throw defaultDomainNotDeletable(name)
      const row = await repo.find(name)
      if (row?.owner_id !== principal.ownerId) throw domainNotFound()
      if (await repo.isInUse(name)) throw domainInUse(name)
      await repo.delete(principal.ownerId, name)
      custom.delete(name)
      await deps.onChange?.()
    },
  }
}
export type DomainsService = ReturnType<typeof createDomainsService>
