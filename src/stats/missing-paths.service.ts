import type { DomainsService } from '../domains/domains.service.js'
import type { Clock } from '../shared/clock.js'
import { notFound } from '../shared/errors.js'
import { parseHost } from '../shared/hosts.js'
import type { Principal } from '../tokens/tokens.service.js'
import { DAY_MS, hourOf } from './classify.js'
import type { MissingPathRow, MissingPathsRepository, VisibleDomain } from './missing-paths.repository.js'
import type { MissingPathObject, MissingPathsQuery } from './missing-paths.schemas.js'
import { resolveSpan } from './stats.range.js'

/** Paths answered by GET /v1/stats/not-found. */
export const TOP_MISSING_PATHS = 50

/**
 * Visits to paths that name no link (docs/api/analytics.md#visits-to-missing-paths): written from the
 * serving thread's tally, read per workspace, pruned with the clicks.
 */
export function createMissingPathsService(deps: {
  repo: MissingPathsRepository
  domains: DomainsService
  clock: Clock
  /** The workspace that also sees the default domains' missing paths (LINKLINE_BOOTSTRAP_OWNER). */
  bootstrapWorkspace: string
  retentionDays: number
}) {
  const { repo, domains, clock } = deps

  /**
   * The caller's verified custom domains, each from the hour it was verified (before, the name may
   * have been another workspace's), and for the bootstrap workspace the default domains too.
   */
  async function visibleDomains(principal: Principal): Promise<VisibleDomain[]> {
    const bootstrap = principal.ownerId === deps.bootstrapWorkspace
    return (await domains.list(principal))
      .filter((d) => (d.isDefault ? bootstrap : d.status === 'verified'))
      .map((d) => ({ name: d.name, since: d.verifiedAt === null ? 0 : hourOf(Date.parse(d.verifiedAt)) }))
  }

  return {
    async top(principal: Principal, query: MissingPathsQuery): Promise<MissingPathObject[]> {
      let visible = await visibleDomains(principal)
      if (query.domain !== undefined) {
        const name = parseHost(query.domain)?.host ?? query.domain.toLowerCase()
        visible = visible.filter((d) => d.name === name)
        if (visible.length === 0) throw notFound('domain', 'domain')
      }
      const span = resolveSpan(query, clock.now())
      const rows = await repo.top(visible, span.from, span.to, TOP_MISSING_PATHS)
      return rows.map((r) => ({ domain: r.domain, path: r.path, clicks: r.clicks, lastAt: new Date(r.lastAt).toISOString() }))
    },

    /** Adds a tally's counts to the stored ones; all or none. */
    record: (rows: readonly MissingPathRow[]): Promise<void> => repo.add(rows),

    /** Retention: as raw clicks, hours older than LINKLINE_CLICK_RETENTION_DAYS go. */
    prune: (): Promise<void> => repo.prune(hourOf(clock.now() - deps.retentionDays * DAY_MS)),
  }
}
export type MissingPathsService = ReturnType<typeof createMissingPathsService>
