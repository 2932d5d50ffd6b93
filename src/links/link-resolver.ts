import { newBatchSlot } from '../stats/visit-batch.js'
import { compilePreview } from './link-previews.js'
import { CLICK_COUNT_REFRESH_MS, compileControls, createClickCounter, type ClickCounter } from './link-controls.js'
import type { LinksRepository } from './links.repository.js'
import type { RedirectCache, RedirectTarget } from './redirect.cache.js'

/** What the redirect asks of links: a (domain, path) looked up and cached, and the clicks of links with maxClicks counted. */
export function createLinkResolver(deps: {
  repo: Pick<LinksRepository, 'findTarget'>
  cache: RedirectCache
  /** The human visits of a link recorded so far (stats' rollups): what maxClicks is compared with. */
  countHumanClicks?: (linkId: string) => Promise<number>
  /** This instance's human visits of limited links not yet written (the container wraps the click sink with it). */
  clickCounter?: ClickCounter
}) {
  const { repo, cache } = deps
  const counter = deps.clickCounter ?? createClickCounter()
  const countHumanClicks = deps.countHumanClicks ?? (async () => 0)

  return {
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
          // Always set, so that every cached target has one shape.
          publicStats: row.public_stats === 1,
          preview: compilePreview(row.preview, row.title),
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
     * learns of the visits other instances wrote (the maxClicks bound in docs/api/redirect.md). Returns the read
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
export type LinkResolver = ReturnType<typeof createLinkResolver>
