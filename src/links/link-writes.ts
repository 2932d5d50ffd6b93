import type { AuditWrittenWithChange } from '../audit/audit.recording.js'
import type { AuditEntry, AuditWriter } from '../audit/audit.service.js'
import type { DomainsService } from '../domains/domains.service.js'
import type { Clock } from '../shared/clock.js'
import { newId, randomBase62 } from '../shared/ids.js'
import { isUniqueViolation } from '../storage/errors.js'
import type { Principal } from '../tokens/tokens.service.js'
import type { Transaction, Transactional } from '../storage/transaction.js'
import type { EventRecorder } from '../webhooks/events.js'
import { createChainCheck, normalizeDestination } from './destinations.js'
import { hashPassword } from '../shared/password-hash.js'
import { expiresAtInvalid, pathTaken } from './links.errors.js'
import type { LinksRepository } from './links.repository.js'
import type { CreateLinkBody, LinkObject, LinkPreview, LinkRule } from './links.schemas.js'
import { normalizePreview } from './link-previews.js'
import type { LinkRow } from './links.table.js'
import type { RedirectCache } from './redirect.cache.js'
import { checkPath } from './short-paths.js'
import { createdByColumns, createdByOf } from '../shared/actor.js'

/** What the links service and the bulk operations are built from (the container hands both the same). */
export type LinkWritesDeps = {
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
  /** A new password's hash, computed for its owner (the container's fair queue: password-hashing.ts). */
  hashPassword?: (ownerId: string, password: string) => Promise<string>
  /**
   * Told of each link created without a title (create and bulk create, not imports), so that the
   * destination page's title is fetched in the background (titles/title-fetcher.ts).
   */
  onUntitled?: (link: { id: string; destination: string }) => void
  /** Webhook events, recorded in the transaction of each change (webhooks/events.ts). */
  events: EventRecorder
  /** The link.created entries of the audit log, written in the transaction of each create (one commit for both). */
  audit: AuditWriter
  transaction: Transactional<LinksRepository>
}

/** The audit declaration of the routes that create links: each create writes its link.created entries itself, with the links. */
export const LINK_CREATED: AuditWrittenWithChange = { writtenWith: 'link.created per link created, in the transaction that writes it (link-writes.ts)' }

/** The controls' columns, as create and update write them. */
export type ControlChanges = Partial<
  Pick<LinkRow, 'redirect_type' | 'expires_at' | 'max_clicks' | 'expired_url' | 'password_hash' | 'rules' | 'public_stats' | 'preview'>
>
type ControlsInput = Pick<CreateLinkBody, 'redirectType' | 'expiresAt' | 'maxClicks' | 'expiredUrl' | 'password' | 'rules' | 'tags' | 'publicStats' | 'preview'>

const RANDOM_PATH_LENGTH = 7
const RANDOM_PATH_ATTEMPTS = 5
export const randomPath = () => `/${randomBase62(RANDOM_PATH_LENGTH)}`

/** The health columns of a link never checked (a new destination's). */
export const UNCHECKED = { health_status: 'unknown', health_http_status: null, health_checked_at: null, health_error: null, health_failures: 0 } as const

/** The link object as the API returns it (also built by the health checker thread, which has no links service). */
export const linkObjectOf = (row: LinkRow, tags: readonly string[], shortUrlScheme: 'http' | 'https'): LinkObject => ({
  id: row.id,
  title: row.title,
  titleSource: row.title_source,
  domain: row.domain,
  path: row.path,
  destination: row.destination,
  shortUrl: `${shortUrlScheme}://${row.domain}${row.path}`,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
  createdBy: createdByOf(row),
  ownerId: row.owner_id,
  schemaVersion: '1',
  redirectType: row.redirect_type,
  expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
  maxClicks: row.max_clicks,
  expiredUrl: row.expired_url,
  hasPassword: row.password_hash !== null,
  rules: row.rules === null ? null : (JSON.parse(row.rules) as LinkRule[]),
  tags: [...tags],
  publicStats: row.public_stats === 1,
  preview: row.preview === null ? null : (JSON.parse(row.preview) as LinkPreview),
  clicks: Number(row.clicks),
  lastClickedAt: row.last_clicked_at === null ? null : new Date(Number(row.last_clicked_at)).toISOString(),
  health: {
    status: row.health_status,
    httpStatus: row.health_http_status,
    checkedAt: row.health_checked_at === null ? null : new Date(Number(row.health_checked_at)).toISOString(),
    error: row.health_error,
  },
})

/**
 * What every write of links shares, single or bulk: the link object, the checks and columns of a
 * create, the inserts with their link.created event, and the cache invalidation after a write.
 */
export function createLinkWrites(deps: LinkWritesDeps) {
  const { repo, domains, cache, clock } = deps
  const hash = deps.hashPassword ?? ((_ownerId: string, password: string) => hashPassword(password))
  const checkRedirectChain = createChainCheck({ domains, repo })

  const toObject = (row: LinkRow, tags: readonly string[] = []): LinkObject => linkObjectOf(row, tags, deps.shortUrlScheme)

  // Awaited before the response, so that the very next request, on any instance, sees the write.
  const invalidate = async (domain: string, path: string) => {
    cache.invalidate(domain, path)
    await deps.onInvalidate?.(domain, path)
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
    if (input.publicStats !== undefined) changes.public_stats = input.publicStats ? 1 : 0
    if (input.preview !== undefined) changes.preview = normalizePreview(input.preview)
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
      ...createdByColumns(principal.actor),
      domain,
      destination,
      title: input.title ?? null,
      title_source: input.title === undefined || input.title === null ? null : 'user',
      created_at: now,
      updated_at: now,
      deleted_at: null,
      redirect_type: 302,
      expires_at: null,
      max_clicks: null,
      expired_url: null,
      password_hash: null,
      rules: null,
      public_stats: 0,
      preview: null,
      clicks: 0,
      last_clicked_at: null,
      ...UNCHECKED,
      ...changes,
    }
    return { base, path: input.path, tags: tags ?? [] }
  }

  /**
   * The domain was checked before the write, outside any transaction: a delete of the domain may have
   * run in between without seeing this link. Confirming afterwards waits for such a delete (its
   * transaction holds the domain row) and, when the domain is gone, undoes the write.
   */
  async function confirmDomainAfterWrite(principal: Principal, domain: string, undo: () => Promise<unknown>) {
    try {
      await domains.confirmForLink(principal, domain)
    } catch (error) {
      await undo()
      throw error
    }
  }

  /** The audit entries of links created, each by its creator (none for the CLI's, which acts as nobody). */
  const createdEntries = (rows: readonly LinkRow[]): AuditEntry[] =>
    rows.flatMap((row) => {
      const actor = createdByOf(row)
      return actor ? [{ workspaceId: row.owner_id, actor, action: 'link.created', resourceType: 'link', resourceId: row.id }] : []
    })

  /** What a create records in the transaction that inserts the links: each one's link.created event, and its audit entry. */
  async function recordCreated(trx: Transaction, links: readonly { row: LinkRow; tags: readonly string[] }[]): Promise<void> {
    for (const { row, tags } of links) await deps.events.record(trx, row.owner_id, 'link.created', toObject(row, tags))
    await deps.audit.record(trx, createdEntries(links.map((link) => link.row)))
  }

  /**
   * Removes links just written (as the API answered them), and their link.created audit entries: a
   * create undone because its domain went away meanwhile. Their link.created events may have been
   * delivered already: each gets a link.deleted, so that no receiver is left holding a link that is
   * gone. The entries are looked for from a minute before the links' creation, in case the clock was
   * stepped back between the two.
   */
  const undoCreates = (ownerId: string, links: readonly LinkObject[]) =>
    deps.transaction(async (tx, trx) => {
      const ids = links.map((link) => link.id)
      await tx.deleteNew(ids)
      await deps.audit.retract(trx, 'link.created', ids, Math.min(...links.map((link) => Date.parse(link.createdAt))) - 60_000)
      for (const link of links) await deps.events.record(trx, ownerId, 'link.deleted', link)
    })

  /** Inserts the link (and its tags), its link.created event and audit entry in the same transaction. */
  const insertRecorded = (row: LinkRow, tags: readonly string[]) =>
    deps.transaction(async (tx, trx) => {
      await tx.insert(row, tags)
      await recordCreated(trx, [{ row, tags }])
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

  /** After the write: a link still without a title gets its page's title fetched (onUntitled). */
  const fetchTitleOf = (row: LinkRow) => {
    if (row.title === null) deps.onUntitled?.({ id: row.id, destination: row.destination })
  }

  return {
    toObject,
    invalidate,
    fetchTitleOf,
    checkRedirectChain,
    controlChanges,
    prepareCreate,
    confirmDomainAfterWrite,
    recordCreated,
    undoCreates,
    insertWithRandomPath,
    insert,
  }
}
