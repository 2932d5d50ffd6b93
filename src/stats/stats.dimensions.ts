/**
 * The breakdowns: the one list a new dimension is added to. The classifier (classify.ts, classifyVisit)
 * gives each visit a value per dimension; the write side stores them in profiles (visit-columns.ts) and
 * sums them into facets (rollup.tally.ts); the read side sums facets (stats.repository.ts) and answers
 * each dimension under its `field` of the statistics object (stats.schemas.ts, which takes `about` as
 * the field's description). Breakdowns count human clicks only; `missing` labels a visit without a
 * value, and a dimension whose `missing` is null leaves such a visit out (cities: only visits looked up
 * in a city database count, and the classifier labels an unknown city itself).
 */
export const DIMENSIONS = {
  referrer: { example: 'news.ycombinator.com', missing: 'direct', field: 'referrers', about: "The Referer's host name, lower-cased; `direct` without one" },
  browser: { example: 'Chrome', missing: 'unknown', field: 'browsers', about: 'The browser named by the User-Agent' },
  os: { example: 'iOS', missing: 'unknown', field: 'os', about: 'The operating system named by the User-Agent' },
  device: { example: 'mobile', missing: 'unknown', field: 'devices', about: 'The device type named by the User-Agent (a browser without one is a desktop)' },
  country: {
    example: 'DE',
    missing: 'unknown',
    field: 'countries',
    about: "ISO 3166-1 alpha-2 code: the trusted country header's, else the client address's in the IP database",
  },
  language: {
    example: 'de-at',
    missing: 'unknown',
    field: 'languages',
    about: 'The first Accept-Language tag, lower-cased, as language or language-region (`fr-ch`; a script is left out)',
  },
  utmSource: {
    example: 'newsletter',
    missing: 'none',
    field: 'utmSources',
    about: "utm_source of the final destination's query (the visit's query merged in)",
  },
  utmMedium: { example: 'email', missing: 'none', field: 'utmMediums', about: "utm_medium of the final destination's query (the visit's query merged in)" },
  utmCampaign: {
    example: 'summer-sale',
    missing: 'none',
    field: 'utmCampaigns',
    about: "utm_campaign of the final destination's query (the visit's query merged in)",
  },
  city: {
    example: 'Berlin, DE',
    missing: null,
    field: 'cities',
    about: '"City, CC" from a city database (LINKLINE_GEOIP_DB); empty without one, and visits recorded without one are left out',
  },
} as const satisfies Record<string, { missing: string | null; field: string; about: string; example: string }>
export type Dimension = keyof typeof DIMENSIONS
/** The dimensions in the order of DIMENSIONS, which is their order in a stored profile: a new one goes last. */
export const DIMENSION_NAMES = Object.keys(DIMENSIONS) as Dimension[]
/** The dimensions of the first release of profiles and facets: data stored without a list of its dimensions has these. */
export const FIRST_DIMENSIONS: readonly Dimension[] = ['referrer', 'browser', 'os', 'device', 'country']
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
 * (Facets stored before a dimension was added lack it: readFacets counts their visits as its missing value.)
 */
export type ProfileInput = Pick<Profile, 'bot' | 'qr' | 'referrer' | 'browser' | 'os' | 'device' | 'country'> & Partial<Profile>

/** Human clicks per dimension and value: a facets row's `counts`, as stored in JSON. */
export type Facets = Partial<Record<Dimension, Record<string, number>>>

/** Adds `more` into `into` (both facets of one period). */
export function addFacets(into: Facets, more: Facets): Facets {
  for (const [dimension, values] of Object.entries(more) as [Dimension, Record<string, number>][]) {
    for (const [value, n] of Object.entries(values)) {
      const counts = (into[dimension] ??= {})
      counts[value] = (counts[value] ?? 0) + n
    }
  }
  return into
}

/** Adds `n` visits of `profile` to `facets`, per dimension and value. */
export function addProfile(facets: Facets, profile: Profile, n: number): void {
  for (const dimension of DIMENSION_NAMES) {
    const value = profile[dimension] ?? DIMENSIONS[dimension].missing
    // A dimension with no value (cities, without a city database) stays out: facets hold counted values only.
    if (value === null) continue
    const counts = (facets[dimension] ??= {})
    counts[value] = (counts[value] ?? 0) + n
  }
}

/**
 * A facets row's JSON (`link_click_rollups.facets`, `link_click_facets.counts`) as facets of every
 * dimension: a row written before a dimension was added (one after FIRST_DIMENSIONS) counts its human
 * visits (those of the referrer, which every visit has) under that dimension's missing value, so that
 * each breakdown still sums to the human clicks.
 */
export function readFacets(json: string): Facets {
  const facets = JSON.parse(json) as Facets
  const counted = facets.referrer
  if (counted === undefined) return facets
  let visits: number | undefined
  for (const dimension of DIMENSION_NAMES) {
    const missing = DIMENSIONS[dimension].missing
    if (facets[dimension] !== undefined || missing === null || FIRST_DIMENSIONS.includes(dimension)) continue
    visits ??= Object.values(counted).reduce((sum, n) => sum + n, 0)
    facets[dimension] = { [missing]: visits }
  }
  return facets
}

/** Each dimension's rows under its field of the statistics object. */
export function byField<T>(rowsOf: (dimension: Dimension) => T): Record<BreakdownField, T> {
  return Object.fromEntries(DIMENSION_NAMES.map((d) => [DIMENSIONS[d].field, rowsOf(d)])) as Record<BreakdownField, T>
}
