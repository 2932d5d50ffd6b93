/**
 * Human visits to paths that name no link, per domain, path and hour (migration 0021): no address, no
 * visitor, only how many and when the last. Rows older than the click retention are pruned.
 */
export interface MissingPathVisitsTable {
  domain: string
  /** As visited (one trailing slash dropped), cut to 129 characters; `(other)` sums the paths beyond the hour's bound. */
  path: string
  /** Start of the hour, epoch ms. */
  hour: number
  clicks: number
  last_at: number
}
