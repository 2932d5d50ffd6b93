import { Type, type Static } from 'typebox'
import { LIMITS } from '../links/links.schemas.js'
import { Envelope, Nullable } from '../shared/schema.js'
import { StatsObject, StatsQuery } from './stats.schemas.js'

/** At most this many `linkId` values (each a link of the caller's, or matching nothing). */
export const MAX_LINK_IDS = 100

export const OverviewQuery = Type.Object(
  {
    ...StatsQuery.properties,
    domain: Type.Optional(Type.String({ minLength: 1, maxLength: 260, description: 'Links on this domain; a domain with none of yours matches nothing' })),
    tag: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: LIMITS.tagLength }), {
        maxItems: LIMITS.tags,
        description: 'May repeat: links carrying every tag given',
      }),
    ),
    linkId: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: MAX_LINK_IDS,
        description: `May repeat (up to ${MAX_LINK_IDS}): links among these; an id that is not one of your links matches nothing`,
      }),
    ),
  },
  { additionalProperties: false },
)
export type OverviewQuery = Static<typeof OverviewQuery>

const TopLink = Type.Object({
  linkId: Type.String({ examples: ['lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9'] }),
  domain: Type.String({ examples: ['go.acme.example'] }),
  path: Type.String({ examples: ['/summer'] }),
  title: Nullable(Type.String({ examples: ['Summer sale'] })),
  clicks: Type.Integer({ description: 'Human clicks in the range' }),
})

// The link statistics' fields but `linkId`: a breakdown added there is added here.
const shared = Object.fromEntries(Object.entries(StatsObject.properties).filter(([field]) => field !== 'linkId')) as Omit<
  typeof StatsObject.properties,
  'linkId'
>

export const OverviewObject = Type.Object(
  {
    ...shared,
    filters: Type.Object(
      {
        domain: Nullable(Type.String({ examples: ['go.acme.example'], description: 'As matched (lower case); null: every domain' })),
        tag: Type.Array(Type.String({ examples: ['summer'] }), { description: 'Links carrying all of these; empty: any' }),
        linkId: Type.Array(Type.String({ examples: ['lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9'] }), { description: 'Links among these; empty: every link' }),
      },
      { description: 'The filters as applied (duplicates dropped)' },
    ),
    topLinks: Type.Array(TopLink, { description: 'The 10 matching links with the most human clicks in the range, most first (ties by id)' }),
  },
  { $id: 'StatsOverview' },
)
export type OverviewObject = Static<typeof OverviewObject>

export const OverviewEnvelope = Envelope(Type.Ref('StatsOverview'))
