import type { Validator } from 'typebox/compile'
import type { DomainsService } from '../domains/domains.service.js'
import { AppError } from '../shared/errors.js'
import { isPasswordHash } from '../shared/password-hash.js'
import type { ImportInput, LinksBulk } from '../links/links.bulk.js'
import { CreateLinkBody, type LinkObject } from '../links/links.schemas.js'
import type { LinkRow } from '../links/links.table.js'
import type { Principal } from '../tokens/tokens.service.js'
import type { ImportRecord, ImportRow } from './porting.peers.js'

/** Inputs per links.importMany call: one write transaction each. */
export const IMPORT_BATCH = 500

export interface ImportSummary {
  created: number
  /** Already there, identical: skipped. */
  present: number
  failed: { where: string; param: string | null; reason: string }[]
  /** Links whose domain on the service they come from is not the owner's here: how many went to which domain instead. */
  moved: { from: string; to: string; links: number }[]
  dryRun: boolean
}

/**
 * What became of one row, for a caller that lists every row (the API's answer): the link created
 * (in a dry run, as it would be: its id and a random path are not kept) or already present, or why
 * the row failed, with the path the row asked for.
 */
export type ImportRowOutcome =
  | { where: string; status: 'created' | 'present'; link: LinkObject }
  | { where: string; status: 'failed'; path: string | null; error: { code: string; message: string; param: string | null } }

// TypeBox's compiler is some 300 modules: loaded by the first import, not by every process that
// builds the container (each server start and each CLI command paid ~0.08 s of CPU for it).
let createLinkBodyValidator: Promise<Validator> | undefined
const linkBodyValidator = () => (createLinkBodyValidator ??= import('typebox/compile').then(({ Compile }) => Compile(CreateLinkBody)))
const FIELD_SCHEMAS = CreateLinkBody.properties as Record<string, { 'x-error'?: string }>

/**
 * The one place where a record becomes the create input of the API: the same body schema as
 * `POST /v1/links` checks it, then the links service applies the same rules.
 */
function toCreateInput(record: ImportRecord, validate: Validator): { input: ImportInput } | { param: string; reason: string } {
  if (record.passwordHash !== undefined && !isPasswordHash(record.passwordHash))
    return { param: 'passwordHash', reason: "passwordHash must be a password hash as Linkline's export writes it (scrypt$N$r$p$salt$hash)" }
  const input: CreateLinkBody = {
    destination: record.destination,
    ...(record.path === undefined ? {} : { path: record.path }),
    ...(record.domain === undefined ? {} : { domain: record.domain }),
    ...(record.title === undefined ? {} : { title: record.title }),
    ...(record.tags.length === 0 ? {} : { tags: record.tags }),
    ...record.controls,
  }
  for (const [field, value] of Object.entries(input)) {
    if (typeof value === 'string' && value.includes('\u0000')) return { param: field, reason: `${field} must not contain the NUL character (U+0000)` }
  }
  if (validate.Check(input)) return { input: record.passwordHash === undefined ? input : { ...input, passwordHash: record.passwordHash } }
  const error = [...validate.Errors(input)].find((e) => e.instancePath !== '') ?? [...validate.Errors(input)][0]
  const param = error?.instancePath.split('/')[1] ?? 'destination'
  const custom = FIELD_SCHEMAS[param]?.['x-error']
  const limit = (error?.params as { limit?: number } | undefined)?.limit
  const reason =
    error?.keyword === 'pattern' && custom
      ? custom
      : error?.keyword === 'maxLength'
        ? `${param} must be at most ${limit} characters`
        : `${param} ${error?.message ?? 'is invalid'}`
  return { param, reason }
}

export function createPortingService(deps: { links: LinksBulk; domains: DomainsService }) {
  /** Whether a host of another service is one of the owner's domains here (default, or custom and verified). */
  async function ownDomain(principal: Principal, host: string, known: Map<string, string | undefined>): Promise<string | undefined> {
    if (!known.has(host)) {
      try {
        known.set(host, await deps.domains.resolveForOwner(principal, host))
      } catch (error) {
        if (!(error instanceof AppError)) throw error
        known.set(host, undefined)
      }
    }
    return known.get(host)
  }

  return {
    /**
     * Imports the rows through the links service in batches (one transaction each). Rows that cannot
     * be read or fail a check are listed with their line and reason; the others are created or, when
     * already present, skipped. `onRows` is told after each batch (for a progress bar), `onOutcome`
     * of each row (in the order rows are settled, which is not the file's).
     */
    async importLinks(
      principal: Principal,
      rows: AsyncIterable<ImportRow>,
      options: { dryRun: boolean; onRows?: (n: number) => void; onOutcome?: (outcome: ImportRowOutcome) => void },
    ): Promise<ImportSummary> {
      const summary: ImportSummary = { created: 0, present: 0, failed: [], moved: [], dryRun: options.dryRun }
      const fail = (where: string, path: string | undefined, error: { code: string; message: string; param: string | null }) => {
        summary.failed.push({ where, param: error.param, reason: error.message })
        options.onOutcome?.({ where, status: 'failed', path: path ?? null, error })
      }
      const validate = await linkBodyValidator()
      const seen = options.dryRun ? new Map<string, LinkRow>() : undefined
      const hosts = new Map<string, string | undefined>()
      /** `paths`: the ones still to try when the input's is taken; `from`: the host that is not the owner's here. */
      type Item = { where: string; input: ImportInput; paths: string[]; from: string | undefined }
      let batch: Item[] = []
      const moved = new Map<string, ImportSummary['moved'][number]>()
      const flush = async () => {
        const outcomes = await deps.links.importMany(
          principal,
          batch.map((b) => b.input),
          { dryRun: options.dryRun, ...(seen ? { seen } : {}) },
        )
        const retries: Item[] = []
        for (const [i, outcome] of outcomes.entries()) {
          const item = batch[i] as Item
          const [next, ...rest] = item.paths
          if (outcome.status === 'failed' && next !== undefined && outcome.error.code === 'conflict' && outcome.error.param === 'path') {
            retries.push({ ...item, input: { ...item.input, path: next }, paths: rest })
            continue
          }
          if (outcome.status === 'failed') {
            const { code, message, param } = outcome.error
            fail(item.where, item.input.path, { code, message, param: param ?? null })
            continue
          }
          if (outcome.status === 'created') summary.created++
          else summary.present++
          options.onOutcome?.({ where: item.where, status: outcome.status, link: outcome.link })
          if (item.from !== undefined) {
            const key = `${item.from} ${outcome.link.domain}`
            const entry = moved.get(key) ?? { from: item.from, to: outcome.link.domain, links: 0 }
            entry.links++
            moved.set(key, entry)
          }
        }
        options.onRows?.(batch.length - retries.length)
        batch = retries
      }
      for await (const row of rows) {
        if ('error' in row) {
          fail(row.where, undefined, { code: 'validation_error', message: row.error, param: null })
          options.onRows?.(1)
          continue
        }
        let record = row.record
        let from: string | undefined
        if (record.domainHint !== undefined && record.domain === undefined) {
          const domain = await ownDomain(principal, record.domainHint, hosts)
          if (domain === undefined) from = record.domainHint
          if (domain === undefined && record.pathsElsewhere !== undefined) record = { ...record, path: record.pathsElsewhere[0] }
          else record = { ...record, domain }
        }
        const checked = toCreateInput(record, validate)
        if ('reason' in checked) {
          fail(row.where, record.path, { code: 'validation_error', message: checked.reason, param: checked.param })
          options.onRows?.(1)
          continue
        }
        const paths = from === undefined ? [] : (record.pathsElsewhere?.slice(1).filter((p) => p !== record.path) ?? [])
        batch.push({ where: row.where, input: checked.input, paths, from })
        if (batch.length >= IMPORT_BATCH) await flush()
      }
      while (batch.length > 0) await flush()
      summary.moved = [...moved.values()]
      // Reasons in file order, whichever stage found them.
      summary.failed.sort((a, b) => rowNumber(a.where) - rowNumber(b.where))
      return summary
    },
  }
}
export type PortingService = ReturnType<typeof createPortingService>

/** The line (or item) number of a row's `where`: `line 12` → 12. */
export const rowNumber = (where: string) => Number(/\d+/.exec(where)?.[0] ?? 0)
