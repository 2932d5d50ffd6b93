import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../shared/clock.js'
import type { Transaction } from '../storage/transaction.js'
import { isUniqueViolation } from '../storage/errors.js'
import type { Principal } from '../tokens/tokens.service.js'
import { isDnsName, isIpLiteral, isLoopback, parseHost, type HostName } from '../shared/hosts.js'
import {
  defaultDomainNotDeletable,
  domainInUse,
  domainNotAllowed,
  domainNotFound,
  domainPending,
  domainTaken,
  invalidDomainName,
  ipLiteralDomain,
  serviceHostDomain,
} from './domains.errors.js'
import type { DomainsRepository } from './domains.repository.js'
import type { DomainObject } from './domains.schemas.js'
import type { DomainRow, DomainStatus } from './domains.table.js'
import { hasVerificationRecord, newVerificationToken, verificationRecordName, type TxtResolver } from './domains.verification.js'
import { createdByColumns, createdByOf } from '../shared/actor.js'

/**
 * How long a pending claim lives without its claimant posting or verifying it again. A pending claim
 * never keeps the name from anyone (another owner may claim it beside, and whoever publishes its TXT
 * record first gets it); this only clears claims nobody follows up.
 */
export const PENDING_TTL_MS = 72 * 60 * 60 * 1000
/** Pending domains looked up per periodic round: bounds the DNS queries of one round. */
const RECHECK_BATCH = 100

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export function createDomainsService(deps: {
  repo: DomainsRepository
  defaults: readonly string[]
  /** Host names of the API itself (LINKLINE_RESERVED_HOSTS), on any port: never claimable. */
  reservedHosts: readonly string[]
  /** The address the server listens on: loopback names (and HOST) on this port are the service itself. */
  listen: { host: string; port: number }
  /** When false (LINKLINE_DOMAIN_VERIFICATION=off), new domains are verified at once. */
  verification: boolean
  resolver: TxtResolver
  /** Whether any link uses the domain (LinksService.anyOnDomain), asked inside the transaction that deletes it. */
  linksOnDomain: (name: string, trx: Transaction) => Promise<boolean>
  clock: Clock
  logger: Pick<FastifyBaseLogger, 'warn'>
  /** Told whenever the set of custom domains changes, so that redirect caches (on every instance) can follow. */
  onChange?: () => Promise<void>
}) {
  const { repo, defaults, clock } = deps
  const defaultSet = new Set(defaults)
  const primary = defaults[0] as string
  const hostnameOf = (host: string) => parseHost(host)?.hostname ?? host
  // Host names (any port) a tenant may not claim, because requests for them are the service's own.
  const ownHostnames = new Set([...defaults, ...deps.reservedHosts, deps.listen.host].map(hostnameOf))
  const reservedHostnames = new Set(deps.reservedHosts.map(hostnameOf))
  // Every custom domain name, held in memory so that the redirect resolves a Host without a query.
  // Pending names are included: their host answers 404 rather than falling back to the primary domain.
  let custom = new Set<string>()
  const ignored = new Set<string>()
  /** Names as typed by clients: parsed like a Host header when possible, else lower-cased for lookup. */
  const key = (raw: string) => parseHost(raw)?.host ?? raw.toLowerCase()

  /** Why a tenant may not have this name as a custom domain; undefined when it may. */
  function refusal(parsed: HostName | undefined) {
    if (parsed === undefined) return invalidDomainName()
    if (isIpLiteral(parsed.hostname)) return ipLiteralDomain(parsed.host)
    if (ownHostnames.has(parsed.hostname)) return serviceHostDomain(parsed.host)
    if (!isDnsName(parsed.hostname)) return invalidDomainName()
    return undefined
  }

  const toObject = (r: DomainRow, linkCount: number): DomainObject => ({
    name: r.name,
    isDefault: false,
    status: r.status,
    linkCount,
    createdAt: iso(r.created_at),
    createdBy: createdByOf(r),
    verifiedAt: iso(r.verified_at),
    lastCheckedAt: iso(r.last_checked_at),
    verification: r.verification_token === null ? null : { type: 'dns-txt', name: verificationRecordName(hostnameOf(r.name)), value: r.verification_token },
  })

  /** One domain's object, with the owner's links on it counted. */
  const answer = async (r: DomainRow): Promise<DomainObject> => toObject(r, (await repo.linkCounts(r.owner_id, r.name)).get(r.name) ?? 0)

  async function findOwned(principal: Principal, name: string): Promise<DomainRow> {
    const row = await repo.findOwned(principal.ownerId, name)
    if (row === undefined) throw domainNotFound()
    return row
  }

  /** (Re)loads the custom domains; tells whether the set changed. */
  async function load(): Promise<boolean> {
    const next = new Set<string>()
    for (const name of await repo.allNames()) {
      // Claimed before these rules (or before a name joined LINKLINE_RESERVED_HOSTS): its host is left
      // to the service, as an unknown host, instead of to the tenant's links.
      const refused = refusal(parseHost(name))
      if (refused === undefined) next.add(name)
      else if (!ignored.has(name)) {
        ignored.add(name)
        deps.logger.warn({ domain: name, reason: refused.message }, 'custom domain ignored: no longer claimable')
      }
    }
    const changed = next.size !== custom.size || [...next].some((name) => !custom.has(name))
    custom = next
    return changed
  }

  /**
   * The owner's claim is verified: the other owners' pending claims on the name end (their domain is
   * 404 to them from now on, and the log says so). False when another owner verified it first.
   */
  async function takeVerified(row: DomainRow, at: number): Promise<boolean> {
    let released: string[] = []
    try {
      const verified = await repo.transaction(async (tx) => {
        if (!(await tx.markVerified(row.owner_id, row.name, at))) return false
        released = await tx.dropOtherClaims(row.name, row.owner_id)
        return true
      })
      if (!verified) return false
    } catch (error) {
      if (isUniqueViolation(error)) return false
      throw error
    }
    for (const owner of released) {
      deps.logger.warn({ domain: row.name, owner, verifiedBy: row.owner_id }, 'pending custom domain claim ended: another owner verified the name')
    }
    return true
  }

  /** Looks the TXT record up and records the outcome; a resolver failure leaves the domain pending (and is logged). */
  async function check(row: DomainRow): Promise<DomainRow> {
    let found = false
    try {
      found = row.verification_token !== null && (await hasVerificationRecord(deps.resolver, hostnameOf(row.name), row.verification_token))
    } catch (error) {
      deps.logger.warn({ err: error, domain: row.name }, 'domain verification: DNS lookup failed; retried later')
    }
    const now = clock.now()
    const verified = found && (await takeVerified(row, now))
    if (!verified) await repo.recordPending(row.owner_id, row.name, now)
    // Other instances hear of it too; they read a domain's status from the database when a link is created.
    if (verified) await deps.onChange?.()
    const status: DomainStatus = verified ? 'verified' : 'pending'
    return { ...row, status, last_checked_at: now, verified_at: verified ? now : null }
  }

  return {
    primary,
    load,

    /** The domain a redirect for this Host resolves against: the host itself when known, else the primary. */
    effectiveHost(host: string): string {
      return defaultSet.has(host) || custom.has(host) ? host : primary
    },

    isDefault: (name: string) => defaultSet.has(name),
    /** Whether `name` is a default or a custom domain: links on any other one answer 404. */
    isKnown: (name: string) => defaultSet.has(name) || custom.has(name),

    /**
     * The domain whose links a URL on `host` would reach if this service answers for that host (a
     * default or custom domain, a reserved host, a loopback alias on the listen port); else undefined.
     */
    servedDomain(host: string): string | undefined {
      const parsed = parseHost(host)
      if (parsed === undefined) return undefined
      if (defaultSet.has(parsed.host) || custom.has(parsed.host)) return parsed.host
      const onListenPort = (parsed.port || '80') === String(deps.listen.port)
      const alias = reservedHostnames.has(parsed.hostname) || (onListenPort && (isLoopback(parsed.hostname) || parsed.hostname === deps.listen.host))
      return alias ? primary : undefined
    },

    /** The domain a new or moved link of this owner gets; throws 400 on a domain it may not use. */
    async resolveForOwner(principal: Principal, domain: string | undefined): Promise<string> {
      if (domain === undefined) return primary
      const name = key(domain)
      if (defaultSet.has(name)) return name
      const row = await repo.findOwned(principal.ownerId, name)
      if (row === undefined || refusal(parseHost(name)) !== undefined) throw domainNotAllowed(domain)
      if (row.status !== 'verified') throw domainPending(name)
      return name
    },

    /**
     * Called after a link was written on `domain`: throws as resolveForOwner would when the domain is no
     * longer the owner's and verified. A write on the domain row, so that it waits for a delete in flight.
     */
    async confirmForLink(principal: Principal, domain: string): Promise<void> {
      if (!defaultSet.has(domain) && !(await repo.touchVerified(principal.ownerId, domain))) throw domainNotAllowed(domain)
    },

    async list(principal: Principal): Promise<DomainObject[]> {
      const [own, counts] = await Promise.all([repo.listByOwner(principal.ownerId), repo.linkCounts(principal.ownerId)])
      const linkCount = (name: string) => counts.get(name) ?? 0
      return [
        ...defaults.map((name) => ({
          name,
          isDefault: true,
          status: 'verified' as const,
          linkCount: linkCount(name),
          createdAt: null,
          createdBy: null,
          verifiedAt: null,
          lastCheckedAt: null,
          verification: null,
        })),
        ...own.map((r) => toObject(r, linkCount(r.name))),
      ]
    },

    get: async (principal: Principal, rawName: string): Promise<DomainObject> => answer(await findOwned(principal, key(rawName))),

    /**
     * Claims a name. A name verified by anyone is 409; a pending claim of another owner is no obstacle
     * (each claimant gets its own record to publish). Posting one's own pending claim again renews it
     * and answers it unchanged (`created: false`).
     */
    async create(principal: Principal, rawName: string): Promise<{ domain: DomainObject; created: boolean }> {
      const parsed = parseHost(rawName)
      const refused = refusal(parsed)
      if (parsed === undefined || refused !== undefined) throw refused ?? invalidDomainName()
      const now = clock.now()
      const own = await repo.findOwned(principal.ownerId, parsed.host)
      if (own?.status === 'pending') {
        await repo.renew(principal.ownerId, own.name, now)
        return { domain: await answer({ ...own, renewed_at: now }), created: false }
      }
      if (own !== undefined || (await repo.verifiedOwner(parsed.host)) !== undefined) throw domainTaken(parsed.host)
      const row: DomainRow = {
        name: parsed.host,
        owner_id: principal.ownerId,
        created_at: now,
        status: deps.verification ? 'pending' : 'verified',
        verification_token: newVerificationToken(),
        verified_at: deps.verification ? null : now,
        last_checked_at: null,
        renewed_at: now,
        ...createdByColumns(principal.actor),
      }
      try {
        await repo.transaction(async (tx) => {
          await tx.insert(row)
          // Without verification a claim is verified at once, and ends the others as a verification would.
          if (row.status === 'verified') await tx.dropOtherClaims(row.name, row.owner_id)
        })
      } catch (error) {
        // Claimed by this owner, or verified by another, since the reads above.
        if (isUniqueViolation(error)) throw domainTaken(row.name)
        throw error
      }
      custom.add(row.name)
      await deps.onChange?.()
      // A new claim: no link can be on it yet.
      return { domain: toObject(row, 0), created: true }
    },

    /** Looks the TXT record up now (a verified domain is answered as it is); renews a pending claim. */
    async verify(principal: Principal, rawName: string): Promise<DomainObject> {
      const row = await findOwned(principal, key(rawName))
      if (row.status === 'verified') return answer(row)
      const now = clock.now()
      await repo.renew(row.owner_id, row.name, now)
      return answer(await check({ ...row, renewed_at: now }))
    },

    /** One periodic round: ends the pending claims left alone, then looks the others up; returns how many became verified. */
    async recheckPending(): Promise<number> {
      const expired = await repo.expirePending(clock.now() - PENDING_TTL_MS)
      for (const claim of expired) {
        deps.logger.warn({ domain: claim.name, owner: claim.owner_id }, 'pending custom domain claim ended: not verified or renewed within 72 hours')
      }
      if (expired.length > 0 && (await load())) await deps.onChange?.()
      let verified = 0
      for (const row of await repo.listPending(RECHECK_BATCH)) {
        if ((await check(row)).status === 'verified') verified++
      }
      return verified
    },

    /** Returns the name as stored (normalised). */
    async delete(principal: Principal, rawName: string): Promise<string> {
      const name = key(rawName)
      if (defaultSet.has(name)) throw defaultDomainNotDeletable(name)
      // One transaction, the delete first: its row lock makes a concurrent writer of the domain row
      // wait, and the check that follows sees every link committed before it (rolled back when in use).
      await repo.transaction(async (tx, trx) => {
        if (!(await tx.delete(principal.ownerId, name))) throw domainNotFound()
        if (await deps.linksOnDomain(name, trx)) throw domainInUse(name)
      })
      // Another owner's pending claim may keep the name known (its host answers 404 rather than the primary's links).
      await load()
      await deps.onChange?.()
      return name
    },
  }
}
export type DomainsService = ReturnType<typeof createDomainsService>
