import type { DomainsService } from '../domains/domains.service.js'
import type { Clock } from '../shared/clock.js'
import { normalizeHostAndPort } from '../shared/hosts.js'
import { newId, randomBase62 } from '../shared/ids.js'
import { AppError } from '../shared/errors.js'
import { isUniqueViolation } from '../storage/errors.js'
import type { Principal } from '../tokens/tokens.service.js'
import {
  customDomainNotMovable,
  destinationControlCharacter,
  destinationChainTooLong,
  destinationLoops,
  destinationTooLong,
  dotSegment,
  invalidDestination,
  domainMoveConflicts,
  linkNotFound,
  notADefaultDomain,
  notAHost,
  pathTaken,
  reservedPath,
  sameDomain,
  titleAndDisplayName,
} from './links.errors.js'
import type { LinkFilters, LinksRepository } from './links.repository.js'
import type { CreateLinkBody, LinkObject, UpdateLinkBody } from './links.schemas.js'
import type { LinkRow } from './links.table.js'
import type { RedirectCache, RedirectTarget } from './redirect.cache.js'

/** What became of one input of an import. */
export type ImportOutcome =
  | { status: 'created' | 'present'; link: LinkObject }
  | { status: 'failed'; error: AppError }

/** First path segments that Linkline serves itself, on every host (so that no domain can shadow the API). */
export const RESERVED_SEGMENTS = new Set(['v1', 'docs', 'healthz', 'readyz', 'metrics', 'app', 'favicon.ico', 'robots.txt', '.well-known'])
const RANDOM_PATH_LENGTH = 7
// eslint-disable-next-line no-control-regex -- the control characters are what this looks for
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/
/** Percent-encoding can triple a 2048-character input; beyond this, no browser or server takes the URL. */
const MAX_SERIALIZED_DESTINATION = 8192
const RANDOM_PATH_ATTEMPTS = 5
/** Most short links of this service a destination may go through before it leaves the service. */
const MAX_CHAIN_HOPS = 5

export function createLinksService(deps: {
  repo: LinksRepository
  domains: DomainsService
  cache: RedirectCache
  clock: Clock
  shortUrlScheme: 'http' | 'https'
  /** Told after a link's (domain, path) changed or went away, so that other instances can drop it too. */
  onInvalidate?: (domain: string, path: string) => Promise<void>
  /** Told after links of many (domain, path) moved at once: every redirect cache, on every instance, starts afresh. */
  onInvalidateAll?: () => Promise<void>
}) {
  const { repo, domains, cache, clock } = deps

  const toObject = (row: LinkRow): LinkObject => ({
    id: row.id,
    title: row.title,
    domain: row.domain,
    path: row.path,
    destination: row.destination,
    shortUrl: `${deps.shortUrlScheme}://${row.domain}${row.path}`,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    ownerId: row.owner_id,
    schemaVersion: '1',
  })

  // Awaited before the response, so that the very next request, on any instance, sees the write.
  const invalidate = async (domain: string, path: string) => {
    cache.invalidate(domain, path)
    await deps.onInvalidate?.(domain, path)
  }

  function normalizeFilters(filters: LinkFilters): LinkFilters {
    const query = { ...filters }
    if (query.domain !== undefined) query.domain = query.domain.toLowerCase()
    // Destinations are stored serialized: a filter written as the user typed it must match too.
    if (query.destination !== undefined && URL.canParse(query.destination)) query.destination = new URL(query.destination).href
    return query
  }

  /** The checks of a create, and the row it would write (no path: a random one is drawn at insert). */
  async function prepare(principal: Principal, input: CreateLinkBody): Promise<Omit<LinkRow, 'path'> & { path?: string }> {
    const domain = await domains.resolveForOwner(principal, input.domain)
    if (input.path !== undefined) checkPath(input.path)
    const destination = normalizeDestination(input.destination)
    await checkRedirectChain(destination, domain, input.path ?? '')
    const now = clock.now()
    return {
      id: newId('lnk'),
      owner_id: principal.ownerId,
      domain,
      path: input.path,
      destination,
      title: input.title ?? null,
      created_at: now,
      updated_at: now,
    }
  }

  function checkPath(path: string) {
    const firstSegment = path.slice(1).split('/')[0] as string
    if (RESERVED_SEGMENTS.has(firstSegment)) throw reservedPath(path)
    // Every WHATWG client turns /a/. into /a/ and /a/.. into / before sending: such a link could never be visited.
    if (path.split('/').some((segment) => segment === '.' || segment === '..')) throw dotSegment()
  }

  /**
   * The destination as stored, returned and sent in `Location`: its WHATWG serialization, which
   * percent-encodes what a header cannot carry and writes the host in punycode (API.md §2). Control
   * characters are refused rather than cleaned: the URL parser would drop tabs and newlines silently.
   */
  function normalizeDestination(destination: string): string {
    if (CONTROL_CHARACTER.test(destination)) throw destinationControlCharacter()
    let url: URL
    try {
      url = new URL(destination)
    } catch {
      throw invalidDestination()
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') throw invalidDestination()
    if (url.href.length > MAX_SERIALIZED_DESTINATION) throw destinationTooLong(MAX_SERIALIZED_DESTINATION)
    return url.href
  }

  /**
   * Follows the destination through this service's own short links (on any of its names: default and
   * custom domains, reserved hosts, loopback aliases) as the redirect would, and refuses a chain that
   * comes back to the link being saved (`id`, at `domain` + `path`) or that does not leave the service
   * within MAX_CHAIN_HOPS. Called after checkDestination, which has parsed the URL once already.
   */
  async function checkRedirectChain(destination: string, domain: string, path: string, id?: string) {
    let next = destination
    for (let hop = 0; hop < MAX_CHAIN_HOPS; hop++) {
      const url = new URL(next)
      const served = domains.servedDomain(url.host)
      if (served === undefined) return
      const hopPath = url.pathname.length > 1 && url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname
      if (served === domain && hopPath === path) throw destinationLoops()
      const target = await repo.findTarget(served, hopPath)
      // The link's own old place (it is moving away) ends the chain: after the update nothing is there.
      if (target === undefined || target.id === id) return
      next = target.destination
    }
    throw destinationChainTooLong(MAX_CHAIN_HOPS)
  }

  /**
   * The domain was checked before the write, outside any transaction: a delete of the domain may have
   * run in between without seeing this link. Confirming afterwards waits for such a delete (its
   * transaction holds the domain row) and, when the domain is gone, undoes the write (issue #18).
   */
  async function confirmDomainAfterWrite(principal: Principal, domain: string, undo: () => Promise<unknown>) {
    try {
      await domains.confirmForLink(principal, domain)
    } catch (error) {
      await undo()
      throw error
    }
  }

  async function insertWithRandomPath(row: Omit<LinkRow, 'path'>): Promise<LinkRow> {
    for (let attempt = 1; ; attempt++) {
      const candidate = { ...row, path: `/${randomBase62(RANDOM_PATH_LENGTH)}` }
      try {
        await repo.insert(candidate)
        return candidate
      } catch (error) {
        if (!isUniqueViolation(error) || attempt === RANDOM_PATH_ATTEMPTS) throw error
      }
    }
  }

  async function insert(row: LinkRow): Promise<LinkRow> {
    try {
      await repo.insert(row)
    } catch (error) {
      if (isUniqueViolation(error)) throw pathTaken(row.domain, row.path)
      throw error
    }
    return row
  }

  async function findOwned(principal: Principal, id: string, param?: string): Promise<LinkRow> {
    const row = await repo.findForOwner(principal.ownerId, id)
    if (!row) throw linkNotFound(param)
    return row
  }

  return {
    async create(principal: Principal, input: CreateLinkBody): Promise<LinkObject> {
      const { path, ...base } = await prepare(principal, input)
      const row = path === undefined ? await insertWithRandomPath(base) : await insert({ ...base, path })
      await confirmDomainAfterWrite(principal, row.domain, () => repo.deleteForOwner(principal.ownerId, row.id))
      // A negative cache entry may exist for a path that was free until now.
      await invalidate(row.domain, row.path)
      return toObject(row)
    },

    /**
     * Creates many links as `create` would (the same checks, one by one), written in one transaction.
     * Safe to run again: a link already there with the same owner, destination and title (at the same
     * path, or, without a path, anywhere on the domain) is `present`, not created twice; a path taken
     * by anything else fails that input alone. `seen` carries the places of earlier batches of a dry
     * run, which wrote nothing. Outcomes come back in the inputs' order.
     */
    async importMany(principal: Principal, inputs: readonly CreateLinkBody[], options: { dryRun: boolean; seen?: Map<string, LinkRow> }): Promise<ImportOutcome[]> {
      const outcomes: ImportOutcome[] = new Array(inputs.length)
      const seen = options.seen ?? new Map<string, LinkRow>()
      const placed: { index: number; row: LinkRow; random?: boolean }[] = []
      const sameAs = (a: LinkRow, b: Pick<LinkRow, 'owner_id' | 'destination' | 'title'>) =>
        a.owner_id === b.owner_id && a.destination === b.destination && a.title === b.title
      const settle = (index: number, row: LinkRow, existing: LinkRow) => {
        outcomes[index] = sameAs(existing, row)
          ? { status: 'present', link: toObject(existing) }
          : { status: 'failed', error: pathTaken(row.domain, row.path) }
      }
      const prepared: (Awaited<ReturnType<typeof prepare>> | undefined)[] = []
      for (const [index, input] of inputs.entries()) {
        try {
          prepared.push(await prepare(principal, input))
        } catch (error) {
          if (!(error instanceof AppError)) throw error
          outcomes[index] = { status: 'failed', error }
          prepared.push(undefined)
        }
      }
      // One query per batch, not one per row: the owner's links to the destinations of the path-less rows.
      const sameKey = (r: Pick<LinkRow, 'domain' | 'destination' | 'title'>) => ` ${r.domain} ${r.destination} ${r.title ?? ''}`
      const pathless = prepared.filter((p) => p !== undefined && p.path === undefined).map((p) => (p as LinkRow).destination)
      const stored = new Map((await repo.findByDestinations(principal.ownerId, [...new Set(pathless)])).map((r) => [sameKey(r), r]))
      for (const [index, item] of prepared.entries()) {
        if (item === undefined) continue
        const { path, ...base } = item
        if (path === undefined) {
          // Without a path, "the same link" is the owner's link to the same destination with the same title.
          const key = sameKey(base)
          const existing = seen.get(key) ?? stored.get(key)
          if (existing) {
            outcomes[index] = { status: 'present', link: toObject(existing) }
          } else if (options.dryRun) {
            const row = { ...base, path: '' }
            seen.set(key, row)
            outcomes[index] = { status: 'created', link: toObject(row) }
          } else {
            // Drawn now and written with the batch; a draw that collides is drawn again below, alone.
            const row = { ...base, path: `/${randomBase62(RANDOM_PATH_LENGTH)}` }
            seen.set(key, row)
            placed.push({ index, row, random: true })
          }
          continue
        }
        const row: LinkRow = { ...base, path }
        const earlier = seen.get(`${row.domain}${row.path}`)
        if (earlier) settle(index, row, earlier)
        else {
          seen.set(`${row.domain}${row.path}`, row)
          placed.push({ index, row })
        }
      }
      const inserted = options.dryRun ? new Set<string>() : await repo.insertManyIfFree(placed.map((p) => p.row))
      const missed = placed.filter((p) => !p.random && !inserted.has(p.row.id)).map((p) => p.row)
      const taken = new Map((await repo.findAtMany(missed)).map((r) => [`${r.domain}${r.path}`, r]))
      for (const { index, row, random } of placed) {
        if (inserted.has(row.id)) {
          outcomes[index] = { status: 'created', link: toObject(row) }
          continue
        }
        // A drawn path that was taken: drawn again (the draw replaces the row's path).
        if (random) {
          outcomes[index] = { status: 'created', link: toObject(await insertWithRandomPath(row)) }
          continue
        }
        const existing = taken.get(`${row.domain}${row.path}`)
        if (existing) settle(index, row, existing)
        // Not inserted, yet gone since: the place was taken while the batch ran.
        else outcomes[index] = options.dryRun ? { status: 'created', link: toObject(row) } : { status: 'failed', error: pathTaken(row.domain, row.path) }
      }
      if (!options.dryRun) {
        const created = outcomes.flatMap((o, index) => (o.status === 'created' ? [{ index, link: o.link }] : []))
        for (const domain of new Set(created.map((c) => c.link.domain))) {
          try {
            await domains.confirmForLink(principal, domain)
          } catch (error) {
            if (!(error instanceof AppError)) throw error
            for (const c of created.filter((c) => c.link.domain === domain)) {
              await repo.deleteForOwner(principal.ownerId, c.link.id)
              outcomes[c.index] = { status: 'failed', error }
            }
          }
        }
        for (const c of created) await invalidate(c.link.domain, c.link.path)
      }
      return outcomes
    },

    /**
     * Every link of the owner that the list's filters select, in the list's order, read in pages of
     * `batch` by keyset: memory stays constant, and the consumer's pace (backpressure) sets the reads.
     */
    async *exportAll(principal: Principal, filters: LinkFilters = {}, batch = 1000): AsyncGenerator<LinkObject> {
      const query = normalizeFilters(filters)
      let after: { createdAt: number; id: string } | undefined
      for (;;) {
        const rows = await repo.listAfter(principal.ownerId, query, after, batch)
        for (const row of rows) yield toObject(row)
        const last = rows.at(-1)
        if (last === undefined || rows.length < batch) return
        after = { createdAt: last.created_at, id: last.id }
      }
    },

    get: async (principal: Principal, id: string) => toObject(await findOwned(principal, id)),

    /** Used by other features (conversations) to check that a link is the caller's. */
    assertOwned: async (principal: Principal, id: string, param: string) => {
      await findOwned(principal, id, param)
    },

    async list(principal: Principal, input: { limit?: number; page?: number; query?: LinkFilters }) {
      const limit = input.limit ?? 20
      const page = input.page ?? 1
      const query = normalizeFilters(input.query ?? {})
      const rows = await repo.list(principal.ownerId, query, (page - 1) * limit, limit + 1)
      return { data: rows.slice(0, limit).map(toObject), pagination: { page, limit, hasMore: rows.length > limit } }
    },

    async update(principal: Principal, id: string, input: UpdateLinkBody): Promise<LinkObject> {
      if (input.title !== undefined && input.display_name !== undefined) throw titleAndDisplayName()
      const current = await findOwned(principal, id)
      const domain = input.domain === undefined ? current.domain : await domains.resolveForOwner(principal, input.domain)
      const path = input.path ?? current.path
      const destination = input.destination === undefined ? current.destination : normalizeDestination(input.destination)
      const title = input.title !== undefined ? input.title : input.display_name !== undefined ? input.display_name : current.title
      const moved = domain !== current.domain || path !== current.path
      if (!moved && destination === current.destination && title === current.title) return toObject(current)
      if (moved) checkPath(path)
      // Links saved before the chain check may close a chain already: a change of title alone is not refused.
      if (moved || destination !== current.destination) await checkRedirectChain(destination, domain, path, id)
      const next: LinkRow = { ...current, domain, path, destination, title, updated_at: clock.now() }
      try {
        await repo.update(principal.ownerId, id, { domain, path, destination, title, updated_at: next.updated_at })
      } catch (error) {
        if (isUniqueViolation(error)) throw pathTaken(domain, path)
        throw error
      }
      if (domain !== current.domain) {
        const { domain: d, path: p, destination: dest, title: t, updated_at } = current
        await confirmDomainAfterWrite(principal, domain, () => repo.update(principal.ownerId, id, { domain: d, path: p, destination: dest, title: t, updated_at }))
      }
      await invalidate(current.domain, current.path)
      if (moved) await invalidate(domain, path)
      return toObject(next)
    },

    async delete(principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
      const row = await repo.deleteForOwner(principal.ownerId, id)
      if (!row) throw linkNotFound()
      await invalidate(row.domain, row.path)
      return { id: row.id, deleted: true }
    },

    /**
     * Domains that hold links but are neither default nor custom domains, as after a change of
     * LINKLINE_DOMAINS or PORT: their links answer 404 while still listed.
     */
    strandedDomains: async () => (await repo.linksPerDomain()).filter((d) => !domains.isKnown(d.domain)),

    /**
     * Moves every link of domain `from`, whoever owns it, to the default domain `to`: all or none, and
     * none when a path is taken there (or served by Linkline itself). An operator's command, not an
     * API: custom domains belong to their owners, whose links move through the API.
     */
    async moveDomain(rawFrom: string, rawTo: string, options: { dryRun: boolean }): Promise<{ from: string; to: string; moved: number }> {
      const from = normalizeHostAndPort(rawFrom)
      const to = normalizeHostAndPort(rawTo)
      if (from === undefined) throw notAHost('from', rawFrom)
      if (to === undefined) throw notAHost('to', rawTo)
      if (from === to) throw sameDomain()
      if (!domains.isDefault(to)) throw notADefaultDomain(to)
      if (domains.isKnown(from) && !domains.isDefault(from)) throw customDomainNotMovable(from)
      const { moved, conflicts } = await repo.moveDomain(from, to, [...RESERVED_SEGMENTS], options.dryRun, clock.now())
      if (conflicts.length > 0) throw domainMoveConflicts(from, to, conflicts)
      if (moved > 0 && !options.dryRun) await deps.onInvalidateAll?.()
      return { from, to, moved }
    },

    /** The redirect's lookup when the cache has no answer: one point query, then a guarded fill. */
    async lookup(domain: string, path: string): Promise<RedirectTarget | false> {
      const seen = cache.generation()
      const row = await repo.findTarget(domain, path)
      const target = row ? { linkId: row.id, destination: row.destination } : false
      cache.fill(domain, path, target, seen)
      return target
    },
  }
}
export type LinksService = ReturnType<typeof createLinksService>
