// The statistics the dashboard shows, from whichever endpoint answers for the page: the overview
// (every link, a tag, a domain), one link's, or a public link's (no sign-in). Each request carries the
// browser's time zone (`tz`), so day buckets and dates are the person's own.
import { ApiError, call, client, withQuery, type Stats } from './api'
import type { Schema } from '../../sdk/index'

/** What the analytics view is about: the page decides, the view only reads. */
export type Scope =
  { kind: 'all' } | { kind: 'tag'; tag: string } | { kind: 'domain'; domain: string } | { kind: 'link'; linkId: string } | { kind: 'public'; linkId: string }

export type Interval = Stats['interval']
export interface Range {
  from: string
  to?: string
  interval: Interval
}

export type TopLink = Schema<'StatsOverview'>['topLinks'][number]
/** The statistics shape of both endpoints: the overview adds `topLinks`. */
export type AnalyticsStats = Omit<Stats, 'linkId'> & { linkId?: string; topLinks?: TopLink[] }

/** The browser's IANA zone (`Europe/Paris`); UTC when the browser does not say. */
export const timeZone = (): string => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
  } catch {
    return 'UTC'
  }
}

const scopeQuery = (scope: Scope) => (scope.kind === 'tag' ? { tag: scope.tag } : scope.kind === 'domain' ? { domain: scope.domain } : {})

/** The endpoint's path and query for a scope and range (`format=csv` for the download link). */
export function statsUrl(scope: Scope, range: Range, format?: 'csv'): string {
  const query = { from: range.from, to: range.to, interval: range.interval, tz: timeZone(), format, ...scopeQuery(scope) }
  if (scope.kind === 'link') return withQuery(`/v1/links/${encodeURIComponent(scope.linkId)}/stats`, query)
  if (scope.kind === 'public') return withQuery(`/v1/public/links/${encodeURIComponent(scope.linkId)}/stats`, query)
  return withQuery('/v1/stats', query)
}

/** The JSON body's data: these requests never ask for CSV, whose body is the other side of the endpoints' union. */
function dataOf<T>(body: string | { data: T }): T {
  if (typeof body === 'string') throw new ApiError(0, 'unexpected_body', 'the server answered CSV where JSON was asked for', null)
  return body.data
}

export async function loadStats(scope: Scope, range: Range): Promise<AnalyticsStats> {
  const query = { from: range.from, to: range.to, interval: range.interval, tz: timeZone() }
  if (scope.kind === 'link') return dataOf(await call(client.GET('/v1/links/{id}/stats', { params: { path: { id: scope.linkId }, query } })))
  if (scope.kind === 'public')
    // Revalidated, not taken from the browser's cache (answers may be kept 15 s): a reload shows the owner's latest choice.
    return dataOf(
      await call(client.GET('/v1/public/links/{id}/stats', { params: { path: { id: scope.linkId }, query }, cache: 'no-cache' }), { quietUnauthorized: true }),
    )
  const filter = scope.kind === 'tag' ? { tag: [scope.tag] } : scope.kind === 'domain' ? { domain: scope.domain } : {}
  return dataOf(await call(client.GET('/v1/stats', { params: { query: { ...query, ...filter } } })))
}
