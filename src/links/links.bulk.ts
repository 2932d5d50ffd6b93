import { AppError } from '../shared/errors.js'
import { isUniqueViolation } from '../storage/errors.js'
import type { Principal } from '../tokens/tokens.service.js'
import { createLinkWrites, randomPath, type LinkWritesDeps } from './link-writes.js'
import { pathTaken, tooManyPasswords } from './links.errors.js'
import type { CreateLinkBody, LinkObject } from './links.schemas.js'
import type { LinkRow } from './links.table.js'

/** One item of a bulk create: its result, in the order of the request. */
export type BulkResult = { ok: true; link: LinkObject } | { ok: false; error: { code: string; message: string; param: string | null } }

/** Items prepared at once in a bulk create (their hashes wait in the owner's lane: password-hashing.ts). */
const PREPARE_CONCURRENCY = 4
/** Items of one bulk create that may set a password: each costs an scrypt hash (docs/api/links.md#bulk). */
export const BULK_PASSWORD_LIMIT = 100

/** An input of an import: a create body, and optionally a password hash taken from Linkline's own export, stored as it is. */
export type ImportInput = CreateLinkBody & { passwordHash?: string }

/** What became of one input of an import. */
export type ImportOutcome = { status: 'created' | 'present'; link: LinkObject } | { status: 'failed'; error: AppError }

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

/** Links written or deleted many at once: the bulk endpoints and the import. Each item is checked as its single counterpart checks it. */
export function createLinksBulk(deps: LinkWritesDeps) {
  const { repo, domains, clock } = deps
  const { toObject, invalidate, fetchTitleOf, prepareCreate, confirmDomainAfterWrite, recordCreated, undoCreates, insertWithRandomPath, insert } =
    createLinkWrites(deps)

  return {
    /**
     * Bulk create (docs/api/links.md#bulk): each item checked as create checks it, then every good item written in
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
          await recordCreated(trx, writing)
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
          await confirmDomainAfterWrite(principal, domain, () =>
            undoCreates(
              principal.ownerId,
              onDomain.map((p) => toObject(p.row, p.tags)),
            ),
          )
        } catch (error) {
          for (const p of onDomain) results[p.index] = itemError(p.index, error)
          written = written.filter((p) => p.row.domain !== domain)
        }
      }
      await Promise.all(written.map((p) => invalidate(p.row.domain, p.row.path)))
      for (const p of written) results[p.index] = { ok: true, link: toObject(p.row, p.tags) }
      for (const p of written) fetchTitleOf(p.row)
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
            const row = { ...base, path: randomPath() }
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
            await recordCreated(
              trx,
              placed.filter((p) => done.has(p.row.id)).map((p) => ({ row: p.row, tags: tagsFor(p.row) })),
            )
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
            const undone = created.filter((c) => c.link.domain === domain)
            await undoCreates(
              principal.ownerId,
              undone.map((c) => c.link),
            )
            for (const c of undone) outcomes[c.index] = { status: 'failed', error }
          }
        }
        for (const c of created) await invalidate(c.link.domain, c.link.path)
      }
      return outcomes
    },
  }
}
export type LinksBulk = ReturnType<typeof createLinksBulk>
