import { normalizeHostAndPort } from '../shared/hosts.js'
import { defaultOf } from '../shared/schema.js'
import type { Transaction } from '../storage/transaction.js'
import { isUniqueViolation } from '../storage/errors.js'
import type { Principal } from '../tokens/tokens.service.js'
import { normalizeDestination } from './destinations.js'
import { createLinkWrites, UNCHECKED, type ControlChanges, type LinkWritesDeps } from './link-writes.js'
import {
  customDomainNotMovable,
  domainMoveConflicts,
  linkNotFound,
  notADefaultDomain,
  notAHost,
  pathTaken,
  sameDomain,
  titleAndDisplayName,
} from './links.errors.js'
import type { LinkFilters, LinkSort } from './link-list.js'
import { ListLinksQuery, type CreateLinkBody, type LinkObject, type UpdateLinkBody } from './links.schemas.js'
import type { LinkRow, LinkRowUpdate } from './links.table.js'
import { checkPath, RESERVED_SEGMENTS } from './short-paths.js'

/**
 * A link as the export writes it: the link object, and its password hash so that an import can
 * restore the link as it was. Without `createdBy`: it names a person or token of this server, unknown
 * to any other (an imported link is made by the import), and the file format stays as it was.
 */
export type ExportedLink = Omit<LinkObject, 'createdBy'> & { passwordHash: string | null }
const withoutCreator = ({ createdBy: _createdBy, ...link }: LinkObject): Omit<LinkObject, 'createdBy'> => link

const DEFAULT_LIMIT = defaultOf(ListLinksQuery, 'limit')
const DEFAULT_PAGE = defaultOf(ListLinksQuery, 'page')
const DEFAULT_SORT = defaultOf(ListLinksQuery, 'sort')
const SORT_COLUMNS = { createdAt: 'created_at', clicks: 'clicks', lastClickedAt: 'last_clicked_at' } as const

/** `sort=` as the repository orders: `-clicks` → clicks, descending. */
const sortOf = (sort: ListLinksQuery['sort'] = DEFAULT_SORT): LinkSort => {
  const descending = sort.startsWith('-')
  return { column: SORT_COLUMNS[(descending ? sort.slice(1) : sort) as keyof typeof SORT_COLUMNS], descending }
}

/** One link at a time: create, read, list, export, update and delete, and the operator's domain moves. */
export function createLinksService(deps: LinkWritesDeps) {
  const { repo, domains, clock } = deps
  const writes = createLinkWrites(deps)
  const { toObject, invalidate, fetchTitleOf, checkRedirectChain, controlChanges, confirmDomainAfterWrite } = writes
  const withTags = async (row: LinkRow) => toObject(row, (await repo.tagsOf([row.id])).get(row.id))

  function normalizeFilters(filters: LinkFilters): LinkFilters {
    const query = { ...filters }
    if (query.domain !== undefined) query.domain = query.domain.toLowerCase()
    // Destinations are stored serialized: a filter written as the user typed it must match too.
    if (query.destination !== undefined && URL.canParse(query.destination)) query.destination = new URL(query.destination).href
    return query
  }

  async function findOwned(principal: Principal, id: string, param?: string): Promise<LinkRow> {
    const row = await repo.findForOwner(principal.ownerId, id)
    if (!row) throw linkNotFound(param)
    return row
  }

  return {
    async create(principal: Principal, input: CreateLinkBody): Promise<LinkObject> {
      const { base, path, tags } = await writes.prepareCreate(principal, input)
      const row = path === undefined ? await writes.insertWithRandomPath(base, tags) : await writes.insert({ ...base, path }, tags)
      const link = toObject(row, tags)
      await confirmDomainAfterWrite(principal, row.domain, () => writes.undoCreates(principal.ownerId, [link]))
      // A negative cache entry may exist for a path that was free until now.
      await invalidate(row.domain, row.path)
      fetchTitleOf(row)
      return link
    },

    /**
     * Gives a link the title found on its destination page, unless it has one by now: one conditional
     * UPDATE, so that a title the owner set meanwhile wins. A link.updated event goes with it, and the
     * caches drop the link. Whether the title was written.
     */
    async fillPageTitle(id: string, title: string): Promise<boolean> {
      const row = await deps.transaction(async (tx, trx) => {
        const filled = await tx.fillTitle(id, title, clock.now())
        if (filled) await deps.events.record(trx, filled.owner_id, 'link.updated', toObject(filled, (await tx.tagsOf([id])).get(id)))
        return filled
      })
      if (row) await invalidate(row.domain, row.path)
      return row !== undefined
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
        for (const row of rows) yield { ...withoutCreator(toObject(row, tags.get(row.id))), passwordHash: row.password_hash }
        const last = rows.at(-1)
        if (last === undefined || rows.length < batch) return
        after = { createdAt: last.created_at, id: last.id }
      }
    },

    get: async (principal: Principal, id: string) => withTags(await findOwned(principal, id)),

    /**
     * The id of a link whose owner made its statistics public, for anyone (stats' getPublic): nothing
     * else of it is disclosed. A private, deleted or unknown link is the very 404 of an unknown link.
     */
    async getPublic(id: string): Promise<{ id: string }> {
      const row = await repo.findPublic(id)
      if (!row) throw linkNotFound()
      return { id: row.id }
    },

    /** Used by other features (conversations) to check that a link is the caller's. */
    assertOwned: async (principal: Principal, id: string, param: string) => {
      await findOwned(principal, id, param)
    },

    async list(principal: Principal, input: Omit<ListLinksQuery, 'query'> & { query?: LinkFilters }) {
      const limit = input.limit ?? DEFAULT_LIMIT
      const page = input.page ?? DEFAULT_PAGE
      const selection = { filters: normalizeFilters(input.query ?? {}), q: input.q }
      const rows = await repo.list(principal.ownerId, selection, sortOf(input.sort), (page - 1) * limit, limit + 1)
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
      // A title the owner changes is theirs from then on (even none); one sent unchanged keeps its source.
      const titleSource = title === current.title ? current.title_source : 'user'
      const moved = domain !== current.domain || path !== current.path
      if (moved) checkPath(path)
      const { changes, tags } = await controlChanges(principal.ownerId, input, domain, path, id)
      const currentTags = (await repo.tagsOf([id])).get(id) ?? []
      const controlsChanged = (Object.keys(changes) as (keyof ControlChanges)[]).some((key) => changes[key] !== current[key])
      const tagsChanged = tags !== undefined && tags.join('\n') !== currentTags.join('\n')
      if (!moved && destination === current.destination && title === current.title && !controlsChanged && !tagsChanged) return toObject(current, currentTags)
      // Links saved before the chain check may close a chain already: a change of title alone is not refused.
      if (moved || destination !== current.destination) await checkRedirectChain(destination, domain, path, id)
      // Another destination is another page: its health is unknown until checked (soon: it is due at once).
      const health = destination === current.destination ? {} : UNCHECKED
      const next: LinkRow = { ...current, domain, path, destination, title, title_source: titleSource, ...changes, ...health, updated_at: clock.now() }
      const written = { domain, path, destination, title, title_source: titleSource, ...changes, ...health, updated_at: next.updated_at }
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
  }
}
export type LinksService = ReturnType<typeof createLinksService>
