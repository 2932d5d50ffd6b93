/**
 * The breakdowns: the one list a new dimension is added to. The classifier (classify.ts, classifyVisit)
 * gives each visit a value per dimension; the write side stores them in profiles (visit-columns.ts) and
 * sums them into facets (rollup.tally.ts); the read side sums facets (stats.repository.ts) and answers
 * each dimension under its `field` of the statistics object (stats.schemas.ts). Breakdowns count human
 * clicks only; `missing` labels a visit without a value.
 */
export const DIMENSIONS = {
  referrer: { missing: 'direct', field: 'referrers' },
  browser: { missing: 'unknown', field: 'browsers' },
  os: { missing: 'unknown', field: 'os' },
  device: { missing: 'unknown', field: 'devices' },
  country: { missing: 'unknown', field: 'countries' },
} as const
export type Dimension = keyof typeof DIMENSIONS
/** The dimensions in the order of DIMENSIONS, which is their order in a stored profile: a new one goes last. */
export const DIMENSION_NAMES = Object.keys(DIMENSIONS) as Dimension[]
/** The statistics object's field of each dimension's top values. */
export type BreakdownField = (typeof DIMENSIONS)[Dimension]['field']

/**
 * What is kept of a visit besides its link, time and visitor: the visit's profile. A site's visits
 * share few of them (the same browsers, referrers and countries again and again), so batches store
 * each distinct profile once and each visit as a few numbers.
 */
export type Profile = { readonly bot: boolean; readonly qr: boolean } & { readonly [D in Dimension]: string | null }

/**
 * A profile as the codecs take it (visit-columns.ts): a dimension added after the first five may be
 * left out, and is then none, so that code written before it (migration 0013, fixtures) stays valid.
 */
export type ProfileInput = Pick<Profile, 'bot' | 'qr' | 'referrer' | 'browser' | 'os' | 'device' | 'country'> & Partial<Profile>

/** Human clicks per dimension and value: a facets row's `counts`, as stored in JSON. */
export type Facets = Partial<Record<Dimension, Record<string, number>>>

/** Adds `more` into `into` (both facets of one period). */
export function addFacets(into: Facets, more: Facets): Facets {
  for (const [dimension, values] of Object.entries(more) as [Dimension, Record<string, number>][]) {
    const counts = (into[dimension] ??= {})
    for (const [value, n] of Object.entries(values)) counts[value] = (counts[value] ?? 0) + n
  }
  return into
}

/** Adds `n` visits of `profile` to `facets`, per dimension and value. */
export function addProfile(facets: Facets, profile: Profile, n: number): void {
  for (const dimension of DIMENSION_NAMES) {
    const counts = (facets[dimension] ??= {})
    const value = profile[dimension] ?? DIMENSIONS[dimension].missing
    counts[value] = (counts[value] ?? 0) + n
  }
}

/** Each dimension's rows under its field of the statistics object. */
export function byField<T>(rowsOf: (dimension: Dimension) => T): Record<BreakdownField, T> {
  return Object.fromEntries(DIMENSION_NAMES.map((d) => [DIMENSIONS[d].field, rowsOf(d)])) as Record<BreakdownField, T>
}
