import { Type, type Static } from 'typebox'
import { Envelope, Nullable } from '../shared/schema.js'

const PATH_PATTERN = '^/[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*$'

const Destination = Type.String({
  maxLength: 2048,
  description: 'Absolute http or https URL',
  examples: ['https://shop.example/summer?ref=qr'],
})
const Domain = Type.String({ minLength: 1, maxLength: 260, description: 'A default domain or one of your custom domains' })
const Path = Type.String({
  maxLength: 129,
  pattern: PATH_PATTERN,
  'x-error': 'path must start with / and hold 1-128 characters of A-Z a-z 0-9 - _ . ~ in segments separated by single slashes, with no trailing slash',
  description: 'Case-sensitive; omitted: 7 random base62 characters',
})
const Title = Nullable(Type.String({ maxLength: 255 }))

export const LinkObject = Type.Object(
  {
    id: Type.String(),
    title: Nullable(Type.String()),
    domain: Type.String(),
    path: Type.String(),
    destination: Type.String(),
    shortUrl: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    ownerId: Type.String(),
    schemaVersion: Type.Literal('1'),
  },
  { $id: 'Link' },
)
export type LinkObject = Static<typeof LinkObject>

export const LinkIdParams = Type.Object({ id: Type.String() })

export const CreateLinkBody = Type.Object(
  { destination: Destination, domain: Type.Optional(Domain), path: Type.Optional(Path), title: Type.Optional(Title) },
  // The whole body's example, which /docs sends as it is: no placeholder domain or path (which would be refused).
  { additionalProperties: false, examples: [{ destination: 'https://shop.example/summer?ref=qr', title: 'Summer sale' }] },
)
export type CreateLinkBody = Static<typeof CreateLinkBody>

export const UpdateLinkBody = Type.Object(
  {
    destination: Type.Optional(Destination),
    domain: Type.Optional(Domain),
    path: Type.Optional(Path),
    title: Type.Optional(Title),
    display_name: Type.Optional(Title),
  },
  { additionalProperties: false, examples: [{ destination: 'https://shop.example/autumn', title: 'Autumn sale' }] },
)
export type UpdateLinkBody = Static<typeof UpdateLinkBody>

/** The list's filters, shared by the export (GET /v1/links/export) so that both always select alike. */
export const LinkFiltersQuery = Type.Object(
  {
    domain: Type.Optional(Type.String()),
    path: Type.Optional(Type.String()),
    destination: Type.Optional(Type.String()),
    title: Type.Optional(Type.String()),
  },
  {
    additionalProperties: false,
    description: 'Exact-match filters: query[title]=Sale, or JSON: query={"title":"Sale"}',
  },
)

export const ListLinksQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    query: Type.Optional(LinkFiltersQuery),
  },
  { additionalProperties: false },
)
export type ListLinksQuery = Static<typeof ListLinksQuery>

export const LinkEnvelope = Envelope(Type.Ref('Link'))
export const LinkListEnvelope = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(Type.Ref('Link')),
  pagination: Type.Object({ page: Type.Integer(), limit: Type.Integer(), hasMore: Type.Boolean() }),
})
export const LinkDeletedEnvelope = Envelope(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }))
