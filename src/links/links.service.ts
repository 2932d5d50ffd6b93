import type { DomainsService } from '../domains/domains.service.js'
import type { Clock } from '../shared/clock.js'
import { normalizeHostAndPort } from '../shared/hosts.js'
import { newId, randomBase62 } from '../shared/ids.js'
import { defaultOf } from '../shared/schema.js'
import type { Transaction, Transactional } from '../storage/transaction.js'
import { AppError } from '../shared/errors.js'
import { isUniqueViolation } from '../storage/errors.js'
import type { Principal } from '../tokens/tokens.service.js'
import type { EventRecorder } from '../webhooks/events.js'
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
  expiresAtInvalid,
  tooManyPasswords,
} from './links.errors.js'
import { CLICK_COUNT_REFRESH_MS, compileControls, createClickCounter, type ClickCounter } from './link-controls.js'
import { hashPassword } from './link-password.js'
import type { LinkFilters, LinksRepository } from './links.repository.js'
import { ListLinksQuery, type CreateLinkBody, type LinkObject, type LinkRule, type UpdateLinkBody } from './links.schemas.js'
import type { LinkRow, LinkRowUpdate } from './links.table.js'
import type { RedirectCache, RedirectTarget } from './redirect.cache.js'
import { newBatchSlot } from '../stats/visit-batch.js'

/** The controls' columns, as create and update write them. */
type ControlChanges = Partial<Pick<LinkRow, 'redirect_type' | 'expires_at' | 'max_clicks' | 'expired_url' | 'password_hash' | 'rules'>>
type ControlsInput = Pick<CreateLinkBody, 'redirectType' | 'expiresAt' | 'maxClicks' | 'expiredUrl' | 'password' | 'rules' | 'tags'>

/** One item of a bulk create: its result, in the order of the request. */
export type BulkResult = { ok: true; link: LinkObject } | { ok: false; error: { code: string; message: string; param: string | null } }

/** Items prepared at once in a bulk create (their hashes wait in the owner's lane: password-hashing.ts). */
const PREPARE_CONCURRENCY = 4
/** Items of one bulk create that may set a password: each costs an scrypt hash (docs/api.md, Bulk). */
export const BULK_PASSWORD_LIMIT = 100

/** An input of an import: a create body, and optionally a password hash taken from Linkline's own export, stored as it is. */
export type ImportInput = CreateLinkBody & { passwordHash?: string }

/** A link as the export writes it: the link object, and its password hash so that an import can restore the link as it was. */
export type ExportedLink = LinkObject & { passwordHash: string | null }

/** What became of one input of an import. */
export type ImportOutcome = { status: 'created' | 'present'; link: LinkObject } | { status: 'failed'; error: AppError }

/** First path segments that Linkline serves itself, on every host (so that no domain can shadow the API). */
export const RESERVED_SEGMENTS = new Set(['v1', 'docs', 'healthz', 'readyz', 'metrics', 'app', 'favicon.ico', 'robots.txt', '.well-known'])
/** The first segment of a path: `/v1/links` → `v1`, `/sale` → `sale`. */
export function firstSegment(path: string): string {
  const end = path.indexOf('/', 1)
  return end === -1 ? path.slice(1) : path.slice(1, end)
}
/** Whether Linkline serves the path itself, on every host: no link may take it, and the redirect leaves it to the API. */
export const isReservedPath = (path: string): boolean => RESERVED_SEGMENTS.has(firstSegment(path))
/** Query parameter that marks a visit as a QR scan (the QR code's URL carries it); stripped before the destination sees the query. */
export const QR_MARKER = 'qr'
const RANDOM_PATH_LENGTH = 7
const DEFAULT_LIMIT = defaultOf(ListLinksQuery, 'limit')
const DEFAULT_PAGE = defaultOf(ListLinksQuery, 'page')
// eslint-disable-next-line no-control-regex -- the control characters are what this looks for
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/
/** Percent-encoding can triple a 2048-character input; beyond this, no browser or server takes the URL. */
const MAX_SERIALIZED_DESTINATION = 8192
const RANDOM_PATH_ATTEMPTS = 5
const randomPath = () => `/${randomBase62(RANDOM_PATH_LENGTH)}`

/**
 * A bulk item's error, its parameter prefixed with the item's place in bracket notation, as every
 * other nested parameter (`links[3][destination]`, `links[3][rules][0][destination]`). Anything
 * but a domain error is a bug: it fails the request (500), not the item.
 */
function itemError(index: number, error: unknown): BulkResult {
  if (!(error instanceof AppError)) throw error
  const param = error.param === undefined || error.param === null ? '' : error.param.replace(/^([^[]+)/, '[$1]')
  return { ok: false, error: { code: error.code, message: error.message, param: `links[${index}]${param}` } }
}
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
  /** Told after a link became a tombstone, so that the background purge removes what it held. */
  onDeleted?: () => void
  /** The human visits of a link recorded so far (stats' rollups): what maxClicks is compared with. */
  countHumanClicks?: (linkId: string) => Promise<number>
  /** This instance's human visits of limited links not yet written (the container wraps the click sink with it). */
  clickCounter?: ClickCounter
  /** A new password's hash, computed for its owner (the container's fair queue: password-hashing.ts). */
  hashPassword?: (ownerId: string, password: string) => Promise<string>
  /** Webhook events, recorded in the transaction of each change (webhooks/events.ts). */
  events: EventRecorder
  transaction: Transactional<LinksRepository>
}) {
  const { repo, domains, cache, clock } = deps
  const counter = deps.clickCounter ?? createClickCounter()
  const countHumanClicks = deps.countHumanClicks ?? (async () => 0)
  const hash = deps.hashPassword ?? ((_ownerId: string, password: string) => hashPassword(password))

  const toObject = (row: LinkRow, tags: readonly string[] = []): LinkObject => ({
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
    redirectType: row.redirect_type,
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
    maxClicks: row.max_clicks,
    expiredUrl: row.expired_url,
    hasPassword: row.password_hash !== null,
    rules: row.rules === null ? null : (JSON.parse(row.rules) as LinkRule[]),
    tags: [...tags],
  })
  const withTags = async (row: LinkRow) => toObject(row, (await repo.tagsOf([row.id])).get(row.id))

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

  function checkPath(path: string) {
    if (isReservedPath(path)) throw reservedPath(path)
    // Every WHATWG client turns /a/. into /a/ and /a/.. into / before sending: such a link could never be visited.
    if (path.split('/').some((segment) => segment === '.' || segment === '..')) throw dotSegment()
  }

  /**
   * The destination as stored, returned and sent in `Location`: its WHATWG serialization, which
   * percent-encodes what a header cannot carry and writes the host in punycode (API.md §2). Control
   * characters are refused rather than cleaned: the URL parser would drop tabs and newlines silently.
   */
  function normalizeDestination(destination: string, param = 'destination'): string {
    if (CONTROL_CHARACTER.test(destination)) throw destinationControlCharacter(param)
    let url: URL
    try {
      url = new URL(destination)
    } catch {
      throw invalidDestination(param)
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') throw invalidDestination(param)
    if (url.href.length > MAX_SERIALIZED_DESTINATION) throw destinationTooLong(MAX_SERIALIZED_DESTINATION, param)
    return url.href
  }

  /**
   * The control fields sent, as columns: URLs normalized and checked like destination (a rule or the
   * expired URL may not loop back to the link either), the password hashed last, once all else passed.
   */
  async function controlChanges(
    ownerId: string,
    input: ControlsInput,
    domain: string,
    path: string,
    id?: string,
  ): Promise<{ changes: ControlChanges; tags: string[] | undefined }> {
    const changes: ControlChanges = {}
    if (input.redirectType !== undefined) changes.redirect_type = input.redirectType
    if (input.expiresAt !== undefined) {
      const at = input.expiresAt === null ? null : Date.parse(input.expiresAt)
      if (at !== null && !Number.isFinite(at)) throw expiresAtInvalid()
      changes.expires_at = at
    }
    if (input.maxClicks !== undefined) changes.max_clicks = input.maxClicks
    if (input.expiredUrl !== undefined && input.expiredUrl !== null) {
      changes.expired_url = normalizeDestination(input.expiredUrl, 'expiredUrl')
      await checkRedirectChain(changes.expired_url, domain, path, id, 'expiredUrl')
    } else if (input.expiredUrl === null) changes.expired_url = null
    if (input.rules !== undefined && input.rules !== null) {
      const rules: LinkRule[] = []
      for (const [i, rule] of input.rules.entries()) {
        const param = `rules[${i}][destination]`
        const destination = normalizeDestination(rule.destination, param)
        await checkRedirectChain(destination, domain, path, id, param)
        const { device, os, country, language } = rule.when
        rules.push({
          when: {
            ...(device && { device: [...new Set(device)] }),
            ...(os && { os: [...new Set(os)] }),
            ...(country && { country: [...new Set(country.map((c) => c.toUpperCase()))] }),
            ...(language && { language: [...new Set(language.map((l) => l.toLowerCase()))] }),
          },
          destination,
        })
      }
      changes.rules = JSON.stringify(rules)
    } else if (input.rules === null) changes.rules = null
    if (input.password !== undefined) changes.password_hash = input.password === null ? null : await hash(ownerId, input.password)
    return { changes, tags: input.tags === undefined ? undefined : [...new Set(input.tags)].sort() }
  }

  /** Everything create checks and computes before the write; the path stays unset when it is to be random. */
  async function prepareCreate(
    principal: Principal,
    input: CreateLinkBody,
  ): Promise<{ base: Omit<LinkRow, 'path'>; path: string | undefined; tags: string[] }> {
    const domain = await domains.resolveForOwner(principal, input.domain)
    if (input.path !== undefined) checkPath(input.path)
    const destination = normalizeDestination(input.destination)
    await checkRedirectChain(destination, domain, input.path ?? '')
    const { changes, tags } = await controlChanges(principal.ownerId, input, domain, input.path ?? '')
    const now = clock.now()
    const base: Omit<LinkRow, 'path'> = {
      id: newId('lnk'),
      owner_id: principal.ownerId,
      domain,
      destination,
      title: input.title ?? null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
      redirect_type: 302,
      expires_at: null,
      max_clicks: null,
      expired_url: null,
      password_hash: null,
      rules: null,
      ...changes,
    }
    return { base, path: input.path, tags: tags ?? [] }
  }

  /**
   * Follows the destination through this service's own short links (on any of its names: default and
   * custom domains, reserved hosts, loopback aliases) as the redirect would, and refuses a chain that
   * comes back to the link being saved (`id`, at `domain` + `path`) or that does not leave the service
   * within MAX_CHAIN_HOPS. Called after checkDestination, which has parsed the URL once already.
   */
  async function checkRedirectChain(destination: string, domain: string, path: string, id?: string, param = 'destination') {
    let next = destination
    for (let hop = 0; hop < MAX_CHAIN_HOPS; hop++) {
      const url = new URL(next)
      const served = domains.servedDomain(url.host)
      if (served === undefined) return
      const hopPath = url.pathname.length > 1 && url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname
      if (served === domain && hopPath === path) throw destinationLoops(param)
      const target = await repo.findTarget(served, hopPath)
      // The link's own old place (it is moving away) ends the chain: after the update nothing is there.
      if (target === undefined || target.id === id) return
      next = target.destination
    }
    throw destinationChainTooLong(MAX_CHAIN_HOPS, param)
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

  /** Inserts the link (and its tags) and records its link.created event in the same transaction. */
  const insertRecorded = (row: LinkRow, tags: readonly string[]) =>
    deps.transaction(async (tx, trx) => {
      await tx.insert(row, tags)
      await deps.events.record(trx, row.owner_id, 'link.created', toObject(row, tags))
    })

  async function insertWithRandomPath(row: Omit<LinkRow, 'path'>, tags: readonly string[] = []): Promise<LinkRow> {
    for (let attempt = 1; ; attempt++) {
      const candidate = { ...row, path: randomPath() }
      try {
        await insertRecorded(candidate, tags)
        return candidate
      } catch (error) {
        if (!isUniqueViolation(error) || attempt === RANDOM_PATH_ATTEMPTS) throw error
      }
    }
  }

  async function insert(row: LinkRow, tags: readonly string[] = []): Promise<LinkRow> {
    try {
      await insertRecorded(row, tags)
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
      const { base, path, tags } = await prepareCreate(principal, input)
      const row = path === undefined ? await insertWithRandomPath(base, tags) : await insert({ ...base, path }, tags)
      await confirmDomainAfterWrite(principal, row.domain, () => repo.deleteNew([row.id]))
      // A negative cache entry may exist for a path that was free until now.
      await invalidate(row.domain, row.path)
      return toObject(row, tags)
    },

    /**
     * Bulk create (API.md §9): each item checked as create checks it, then every good item written in
     * one transaction (paths taken already, or twice in the request, fail their items beforehand); should
     * that transaction still meet a taken path (a concurrent write), the items are written one by one.
     * `items` holds the body of each item, or the error its validation gave.
     */
    async createMany(principal: Principal, items: readonly ({ input: CreateLinkBody } | { error: AppError })[]): Promise<BulkResult[]> {
      const results: BulkResult[] = items.map((item, i) =>
        'error' in item ? itemError(i, item.error) : { ok: false, error: { code: 'internal_error', message: '', param: null } },
      )
      const prepared: { index: number; row: LinkRow; tags: string[]; random: boolean }[] = []
      let passwords = 0
      const pending = items.flatMap((item, index) => {
        if (!('input' in item)) return []
        if (typeof item.input.password === 'string' && ++passwords > BULK_PASSWORD_LIMIT) {
          results[index] = itemError(index, tooManyPasswords(BULK_PASSWORD_LIMIT))
          return []
        }
        return [{ index, input: item.input }]
      })
      for (let start = 0; start < pending.length; start += PREPARE_CONCURRENCY) {
        await Promise.all(
          pending.slice(start, start + PREPARE_CONCURRENCY).map(async ({ index, input }) => {
            try {
              const { base, path, tags } = await prepareCreate(principal, input)
              prepared.push({ index, row: { ...base, path: path ?? randomPath() }, tags, random: path === undefined })
            } catch (error) {
              results[index] = itemError(index, error)
            }
          }),
        )
      }
      prepared.sort((a, b) => a.index - b.index)
      const taken = await repo.taken(prepared.map((p) => p.row))
      const writing: typeof prepared = []
      for (const p of prepared) {
        const key = `${p.row.domain}${p.row.path}`
        if (taken.has(key) && p.random) p.row = { ...p.row, path: randomPath() }
        else if (taken.has(key)) {
          results[p.index] = itemError(p.index, pathTaken(p.row.domain, p.row.path))
          continue
        }
        taken.add(`${p.row.domain}${p.row.path}`)
        writing.push(p)
      }
      let written = writing
      try {
        await deps.transaction(async (tx, trx) => {
          await tx.insertMany(writing)
          for (const p of writing) await deps.events.record(trx, principal.ownerId, 'link.created', toObject(p.row, p.tags))
        })
      } catch (error) {
        if (!isUniqueViolation(error)) throw error
        written = []
        for (const p of writing) {
          try {
            p.row = p.random ? await insertWithRandomPath(p.row, p.tags) : await insert(p.row, p.tags)
            written.push(p)
          } catch (failure) {
            results[p.index] = itemError(p.index, failure)
          }
        }
      }
      // As create does, per custom domain: links written on a domain deleted meanwhile are undone.
      for (const domain of new Set(written.map((p) => p.row.domain))) {
        const onDomain = written.filter((p) => p.row.domain === domain)
        try {
          await confirmDomainAfterWrite(principal, domain, () => repo.deleteNew(onDomain.map((p) => p.row.id)))
        } catch (error) {
          for (const p of onDomain) results[p.index] = itemError(p.index, error)
          written = written.filter((p) => p.row.domain !== domain)
        }
      }
      await Promise.all(written.map((p) => invalidate(p.row.domain, p.row.path)))
      for (const p of written) results[p.index] = { ok: true, link: toObject(p.row, p.tags) }
      return results
    },

    /** Bulk delete: one result per id sent, in order; ids the caller has no link of are `deleted: false`. As delete, in the background. */
    async deleteMany(principal: Principal, ids: readonly string[]): Promise<{ id: string; deleted: boolean }[]> {
      const rows = await deps.transaction(async (tx, trx) => {
        const marked = await tx.markManyDeleted(principal.ownerId, [...new Set(ids)], clock.now())
        for (const row of marked) await deps.events.record(trx, principal.ownerId, 'link.deleted', toObject(row))
        return marked
      })
      await Promise.all(rows.map((row) => invalidate(row.domain, row.path)))
      if (rows.length > 0) deps.onDeleted?.()
      const deleted = new Set(rows.map((row) => row.id))
      return ids.map((id) => ({ id, deleted: deleted.has(id) }))
    },

    /**
     * Creates many links as `create` would (the same checks, one by one), written in one transaction.
     * Safe to run again: a link already there with the same owner, destination and title (at the same
     * path, or, without a path, anywhere on the domain) is `present`, not created twice; a path taken
     * by anything else fails that input alone. `seen` carries the places of earlier batches of a dry
     * run, which wrote nothing. Outcomes come back in the inputs' order.
     */
    async importMany(
      principal: Principal,
      inputs: readonly ImportInput[],
      options: { dryRun: boolean; seen?: Map<string, LinkRow> },
    ): Promise<ImportOutcome[]> {
      const outcomes: ImportOutcome[] = new Array(inputs.length)
      const seen = options.seen ?? new Map<string, LinkRow>()
      const placed: { index: number; row: LinkRow; random?: boolean }[] = []
      const tagsOf = new Map<string, string[]>()
      const sameAs = (a: LinkRow, b: Pick<LinkRow, 'owner_id' | 'destination' | 'title'>) =>
        a.owner_id === b.owner_id && a.destination === b.destination && a.title === b.title
      const settle = (index: number, row: LinkRow, existing: LinkRow) => {
        outcomes[index] = sameAs(existing, row) ? { status: 'present', link: toObject(existing) } : { status: 'failed', error: pathTaken(row.domain, row.path) }
      }
      const prepared: ((Omit<LinkRow, 'path'> & { path?: string }) | undefined)[] = []
      for (const [index, input] of inputs.entries()) {
        try {
          const { passwordHash, ...body } = input
          const { base, path, tags } = await prepareCreate(principal, body)
          tagsOf.set(base.id, tags)
          prepared.push({ ...base, ...(passwordHash !== undefined && { password_hash: passwordHash }), path })
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
            outcomes[index] = { status: 'present', link: toObject(existing, tagsOf.get(existing.id)) }
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
      const tagsFor = (row: LinkRow) => tagsOf.get(row.id) ?? []
      const inserted = options.dryRun
        ? new Set<string>()
        : await deps.transaction(async (tx, trx) => {
            const done = await tx.insertManyIfFree(placed.map((p) => ({ row: p.row, tags: tagsFor(p.row) })))
            for (const { row } of placed) if (done.has(row.id)) await deps.events.record(trx, principal.ownerId, 'link.created', toObject(row, tagsFor(row)))
            return done
          })
      const missed = placed.filter((p) => !p.random && !inserted.has(p.row.id)).map((p) => p.row)
      const taken = new Map((await repo.findAtMany(missed)).map((r) => [`${r.domain}${r.path}`, r]))
      for (const { index, row, random } of placed) {
        if (inserted.has(row.id)) {
          outcomes[index] = { status: 'created', link: toObject(row, tagsFor(row)) }
          continue
        }
        // A drawn path that was taken: drawn again (the draw replaces the row's path).
        if (random) {
          outcomes[index] = { status: 'created', link: toObject(await insertWithRandomPath(row, tagsFor(row)), tagsFor(row)) }
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
              await repo.deleteNew([c.link.id])
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
    async *exportAll(principal: Principal, filters: LinkFilters = {}, batch = 1000): AsyncGenerator<ExportedLink> {
      const query = normalizeFilters(filters)
      let after: { createdAt: number; id: string } | undefined
      for (;;) {
        const rows = await repo.listAfter(principal.ownerId, query, after, batch)
        const tags = await repo.tagsOf(rows.map((row) => row.id))
        for (const row of rows) yield { ...toObject(row, tags.get(row.id)), passwordHash: row.password_hash }
        const last = rows.at(-1)
        if (last === undefined || rows.length < batch) return
        after = { createdAt: last.created_at, id: last.id }
      }
    },

    get: async (principal: Principal, id: string) => withTags(await findOwned(principal, id)),

    /** Used by other features (conversations) to check that a link is the caller's. */
    assertOwned: async (principal: Principal, id: string, param: string) => {
      await findOwned(principal, id, param)
    },

    async list(principal: Principal, input: { limit?: number; page?: number; query?: LinkFilters }) {
      const limit = input.limit ?? DEFAULT_LIMIT
      const page = input.page ?? DEFAULT_PAGE
      const query = normalizeFilters(input.query ?? {})
      const rows = await repo.list(principal.ownerId, query, (page - 1) * limit, limit + 1)
      const tags = await repo.tagsOf(rows.slice(0, limit).map((row) => row.id))
      return { data: rows.slice(0, limit).map((row) => toObject(row, tags.get(row.id))), pagination: { page, limit, hasMore: rows.length > limit } }
    },

    async update(principal: Principal, id: string, input: UpdateLinkBody): Promise<LinkObject> {
      if (input.title !== undefined && input.display_name !== undefined) throw titleAndDisplayName()
      const current = await findOwned(principal, id)
      const domain = input.domain === undefined ? current.domain : await domains.resolveForOwner(principal, input.domain)
      const path = input.path ?? current.path
      const destination = input.destination === undefined ? current.destination : normalizeDestination(input.destination)
      const title = input.title !== undefined ? input.title : input.display_name !== undefined ? input.display_name : current.title
      const moved = domain !== current.domain || path !== current.path
      if (moved) checkPath(path)
      const { changes, tags } = await controlChanges(principal.ownerId, input, domain, path, id)
      const currentTags = (await repo.tagsOf([id])).get(id) ?? []
      const controlsChanged = (Object.keys(changes) as (keyof ControlChanges)[]).some((key) => changes[key] !== current[key])
      const tagsChanged = tags !== undefined && tags.join('\n') !== currentTags.join('\n')
      if (!moved && destination === current.destination && title === current.title && !controlsChanged && !tagsChanged) return toObject(current, currentTags)
      // Links saved before the chain check may close a chain already: a change of title alone is not refused.
      if (moved || destination !== current.destination) await checkRedirectChain(destination, domain, path, id)
      const next: LinkRow = { ...current, domain, path, destination, title, ...changes, updated_at: clock.now() }
      const written = { domain, path, destination, title, ...changes, updated_at: next.updated_at }
      try {
        await deps.transaction(async (tx, trx) => {
          await tx.update(principal.ownerId, id, written, tagsChanged ? tags : undefined)
          await deps.events.record(trx, principal.ownerId, 'link.updated', toObject(next, tags ?? currentTags))
        })
      } catch (error) {
        if (isUniqueViolation(error)) throw pathTaken(domain, path)
        throw error
      }
      if (domain !== current.domain) {
        // The undo writes back the previous value of every column the update wrote.
        const previous = Object.fromEntries(Object.keys(written).map((key) => [key, current[key as keyof typeof written]])) as LinkRowUpdate
        await confirmDomainAfterWrite(principal, domain, () => repo.update(principal.ownerId, id, previous, tagsChanged ? currentTags : undefined))
      }
      await invalidate(current.domain, current.path)
      if (moved) await invalidate(domain, path)
      return toObject(next, tags ?? currentTags)
    },

    /**
     * Whether any link, whoever owns it, uses the domain. Domains ask it inside the transaction that
     * deletes the domain (`trx`), so that the answer and the delete are one atomic step.
     */
    anyOnDomain: (domain: string, trx?: Transaction): Promise<boolean> => repo.anyOnDomain(domain, trx),

    /**
     * The link is gone for every reader and its (domain, path) free once this answers; its clicks and
     * conversations, however many, are removed afterwards by the purge, in bounded batches.
     */
    async delete(principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
      const row = await deps.transaction(async (tx, trx) => {
        const deleted = await tx.markDeleted(principal.ownerId, id, clock.now())
        if (deleted) await deps.events.record(trx, principal.ownerId, 'link.deleted', toObject(deleted))
        return deleted
      })
      if (!row) throw linkNotFound()
      await invalidate(row.domain, row.path)
      deps.onDeleted?.()
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
      let target: RedirectTarget | false = false
      if (row) {
        // Visits not yet written were counted here before the stored count was read: none is missed.
        const unwritten = row.max_clicks === null ? 0 : counter.pending(row.id)
        const stored = row.max_clicks === null ? undefined : (await countHumanClicks(row.id)) + unwritten
        target = {
          linkId: row.id,
          destination: row.destination,
          status: row.redirect_type,
          controls: compileControls(row, stored, Date.now()),
          clickSlot: newBatchSlot(),
        }
      }
      cache.fill(domain, path, target, seen)
      return target
    },

    /** The redirect recorded a human visit of a link with maxClicks. */
    countVisit(target: RedirectTarget): void {
      const count = target.controls?.clicks
      if (count === undefined) return
      count.local++
      counter.counted(target.linkId)
    },

    /**
     * Reads a cached link's click count again once it is CLICK_COUNT_REFRESH_MS old: how an instance
     * learns of the visits other instances wrote (the maxClicks bound in docs/api.md). Returns the read
     * to wait for (shared by the requests that came meanwhile), or undefined when the count is fresh.
     */
    refreshClickCount(target: RedirectTarget, now: number): Promise<void> | undefined {
      const count = target.controls?.clicks
      if (count === undefined) return undefined
      if (count.refreshing !== undefined) return count.refreshing
      if (now - count.readAt < CLICK_COUNT_REFRESH_MS) return undefined
      const localAtStart = count.local
      const unwritten = counter.pending(target.linkId)
      count.refreshing = countHumanClicks(target.linkId)
        .then(
          (stored) => {
            count.base = stored + unwritten
            count.local -= localAtStart
          },
          () => {},
        )
        .finally(() => {
          // Real time, as the redirect's own checks (expiresAt too) use.
          count.readAt = Date.now()
          count.refreshing = undefined
        })
      return count.refreshing
    },
  }
}
export type LinksService = ReturnType<typeof createLinksService>
