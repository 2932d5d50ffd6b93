import { Type, type Static } from 'typebox'
import { CreatedBy, Envelope, Nullable, StringEnum } from '../shared/schema.js'

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

/** Limits of the controls (docs/api/links.md#limits-and-input). */
export const LIMITS = {
  rules: 20,
  ruleValues: 50,
  tags: 20,
  tagLength: 50,
  passwordMin: 4,
  passwordMax: 128,
  maxClicks: 1_000_000_000_000,
  bulk: 1000,
  /** The list's `q`, in characters. */
  search: 200,
  /** A social preview's fields, in characters (docs/api/links.md#social-previews). */
  previewTitle: 200,
  previewDescription: 500,
  previewImage: 2048,
} as const
export const DEVICES = ['ios', 'android', 'mobile', 'tablet', 'desktop'] as const
export const TITLE_SOURCES = ['page', 'user'] as const

const RedirectType = Type.Integer({
  enum: [301, 302, 307, 308],
  description: 'Status of the redirect; default 302',
  'x-error': 'redirectType must be one of 301, 302, 307, 308',
})
const ExpiresAt = Nullable(
  Type.String({
    format: 'date-time',
    'x-error': 'expiresAt must be an ISO 8601 date-time with a time zone, e.g. 2026-12-31T23:59:59Z',
    description: 'From then on the link is expired; null: never',
  }),
)
const MaxClicks = Nullable(
  Type.Integer({ minimum: 1, maximum: LIMITS.maxClicks, description: 'Once this many human visits were recorded, the link is expired; null: no limit' }),
)
const ExpiredUrl = Nullable(Type.String({ maxLength: 2048, description: 'Where an expired link redirects (302); null: 410 with a small page' }))
const Password = Nullable(
  Type.String({
    minLength: LIMITS.passwordMin,
    maxLength: LIMITS.passwordMax,
    description: 'Write-only: visitors must enter it in a form before the redirect; null removes it. Links show hasPassword instead',
  }),
)
const Values = (item: ReturnType<typeof Type.String>) => Type.Array(item, { minItems: 1, maxItems: LIMITS.ruleValues })
const Rule = Type.Object(
  {
    when: Type.Object(
      {
        device: Type.Optional(Type.Array(StringEnum(DEVICES), { minItems: 1, maxItems: DEVICES.length })),
        os: Type.Optional(
          Values(
            Type.String({
              examples: ['iOS'],
              minLength: 1,
              maxLength: 50,
              description: 'An OS name as ua-parser-js names it (iOS, Android, Windows, macOS, Linux, Chrome OS…), any case',
            }),
          ),
        ),
        country: Type.Optional(
          Values(Type.String({ examples: ['DE'], pattern: '^[A-Za-z]{2}$', 'x-error': 'a country is a two-letter ISO 3166-1 code, e.g. DE' })),
        ),
        language: Type.Optional(
          Values(
            Type.String({
              examples: ['de'],
              pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
              'x-error': 'a language is a BCP 47 tag, e.g. de or de-AT',
            }),
          ),
        ),
      },
      { additionalProperties: false, description: 'Every condition given must match (any of its values); an empty object matches every visit' },
    ),
    destination: Destination,
  },
  { additionalProperties: false },
)
const Rules = Nullable(
  Type.Array(Rule, { maxItems: LIMITS.rules, description: 'The first rule whose conditions all match picks the destination; none: destination' }),
)
const Tag = Type.String({ minLength: 1, maxLength: LIMITS.tagLength })
const Tags = Type.Array(Tag, { maxItems: LIMITS.tags, description: 'Duplicates are dropped; returned sorted. On update, the list replaces the old one' })

const PublicStats = Type.Boolean({
  description:
    'Anyone may read the statistics, without signing in: GET /v1/public/links/{id}/stats, the page /app/public/{id}, reached by the short URL followed by +; default false',
})

/** What a link-preview crawler shows of the link (link-previews.ts); null or no field set: no preview. */
const PreviewFields = {
  title: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: LIMITS.previewTitle,
        description: "The card's title; absent: the link's title",
        examples: ['Summer sale: half off'],
      }),
    ),
  ),
  description: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: LIMITS.previewDescription,
        description: "The card's text",
        examples: ['Every summer item at half price, this week only'],
      }),
    ),
  ),
  image: Type.Optional(
    Nullable(
      Type.String({ maxLength: LIMITS.previewImage, description: "The card's image: an absolute https URL", examples: ['https://shop.example/card.png'] }),
    ),
  ),
}
const Preview = Nullable(
  Type.Object(PreviewFields, {
    additionalProperties: false,
    description:
      'The social preview that link-preview crawlers (Slack, Facebook, X, LinkedIn, Discord, WhatsApp, iMessage, Telegram…) get instead of the redirect; null removes it. On update, the object replaces the old one',
  }),
)
export type LinkPreview = { title: string | null; description: string | null; image: string | null }

/** The controls, accepted alike by create, update and bulk create. */
const controls = {
  redirectType: Type.Optional(RedirectType),
  expiresAt: Type.Optional(ExpiresAt),
  maxClicks: Type.Optional(MaxClicks),
  expiredUrl: Type.Optional(ExpiredUrl),
  password: Type.Optional(Password),
  rules: Type.Optional(Rules),
  tags: Type.Optional(Tags),
  publicStats: Type.Optional(PublicStats),
  preview: Type.Optional(Preview),
}

export const HEALTH_STATUSES = ['unknown', 'ok', 'broken'] as const

/** The destination's health (docs/api/link-care.md#destination-health). */
const LinkHealth = Type.Object(
  {
    status: StringEnum(HEALTH_STATUSES, {
      description: 'unknown before a verdict; broken after two failed checks in a row; ok again after one success',
    }),
    httpStatus: Nullable(Type.Integer({ description: 'The final HTTP status of the last check (after redirects); null without an answer' })),
    checkedAt: Nullable(Type.String({ format: 'date-time', description: 'When the destination was last checked; null before the first check' })),
    error: Nullable(
      Type.String({
        examples: ['timeout'],
        description:
          'Why the last check failed: http_status, dns, tls, timeout, connection, private_address, too_many_redirects or invalid_url; null when it succeeded',
      }),
    ),
  },
  { description: 'Destination health, checked in the background and by POST /v1/links/{id}/check' },
)

export const LinkObject = Type.Object(
  {
    id: Type.String({ examples: ['lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9'] }),
    title: Nullable(Type.String({ examples: ['Summer sale'] })),
    titleSource: Nullable(
      StringEnum(TITLE_SOURCES, {
        description:
          "Where title came from: page (the destination page's og:title or <title>, fetched after a create without a title), user (written through the API or an import); null: no title given yet (a fetch may still be under way) or none found",
      }),
    ),
    domain: Type.String({ examples: ['go.acme.example'] }),
    path: Type.String({ examples: ['/summer'] }),
    destination: Type.String({ examples: ['https://shop.acme.example/summer?utm_source=poster'] }),
    shortUrl: Type.String({ examples: ['https://go.acme.example/summer'] }),
    createdAt: Type.String({ format: 'date-time' }),
    createdBy: CreatedBy,
    updatedAt: Type.String({ format: 'date-time' }),
    ownerId: Type.String({ examples: ['acme'] }),
    schemaVersion: Type.Literal('1'),
    redirectType: Type.Integer({ enum: [301, 302, 307, 308] }),
    expiresAt: Nullable(Type.String({ format: 'date-time' })),
    maxClicks: Nullable(Type.Integer()),
    expiredUrl: Nullable(Type.String({ examples: ['https://shop.acme.example/sale-is-over'] })),
    hasPassword: Type.Boolean(),
    rules: Nullable(Type.Array(Rule)),
    tags: Type.Array(Type.String({ examples: ['summer'] })),
    publicStats: Type.Boolean(),
    preview: Nullable(
      Type.Object(
        {
          title: Nullable(Type.String({ examples: ['Summer sale: half off'] })),
          description: Nullable(Type.String({ examples: ['Every summer item at half price, this week only'] })),
          image: Nullable(Type.String({ examples: ['https://shop.acme.example/cards/summer.png'] })),
        },
        { description: 'The social preview; null: none' },
      ),
    ),
    clicks: Type.Integer({ minimum: 0, description: 'Human clicks, all time, as the statistics count them: a visit is here once rolled up (within 15 s)' }),
    lastClickedAt: Nullable(Type.String({ format: 'date-time', description: 'The latest human click rolled up; null before the first' })),
    health: LinkHealth,
  },
  { $id: 'Link' },
)
export type LinkObject = Static<typeof LinkObject>

export const LinkIdParams = Type.Object({ id: Type.String() })

export const CreateLinkBody = Type.Object(
  { destination: Destination, domain: Type.Optional(Domain), path: Type.Optional(Path), title: Type.Optional(Title), ...controls },
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
    ...controls,
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
    tag: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: LIMITS.tags,
        description: 'Links carrying every tag given: repeat it (query[tag]=promo&query[tag]=summer), or one value for one tag',
      }),
    ),
    health: Type.Optional(StringEnum(HEALTH_STATUSES, { description: 'Links whose destination health is this: query[health]=broken' })),
  },
  {
    additionalProperties: false,
    description: 'Exact-match filters, combined with AND: query[title]=Sale, query[tag]=promo, or JSON: query={"title":"Sale"}',
  },
)

/** The list's orders: a field, `-` before it for descending. */
export const LINK_SORTS = ['createdAt', '-createdAt', 'clicks', '-clicks', 'lastClickedAt', '-lastClickedAt'] as const

export const ListLinksQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    sort: Type.Optional(
      StringEnum(LINK_SORTS, {
        default: '-createdAt',
        description:
          'The order: createdAt, clicks or lastClickedAt, ascending, or descending with a - before it; ties by id. Links never clicked come last either way',
      }),
    ),
    q: Type.Optional(
      Type.String({
        maxLength: LIMITS.search,
        description:
          'Links whose title, path, destination or a tag holds this text, ignoring case (ASCII letters on SQLite); % and _ are plain characters. Empty: every link',
        examples: ['sale'],
      }),
    ),
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
export const LinkDeletedEnvelope = Envelope(Type.Object({ id: Type.String({ examples: ['lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9'] }), deleted: Type.Literal(true) }))

export type LinkRule = Static<typeof Rule>

/**
 * Bulk create, as documented: a list of bodies as POST /v1/links takes. The route attaches Ajv's
 * verdict instead of failing on it, checks BulkCreateShape (the list itself), then each item on its
 * own against CreateLinkBody, so that one bad item fails only itself.
 */
export const BulkCreateBody = Type.Object(
  { links: Type.Array(CreateLinkBody, { minItems: 1, maxItems: LIMITS.bulk, description: `1-${LIMITS.bulk} link bodies; each stands alone` }) },
  {
    additionalProperties: false,
    examples: [
      {
        links: [
          { destination: 'https://shop.example/summer', tags: ['summer'] },
          { destination: 'https://shop.example/autumn', redirectType: 301 },
        ],
      },
    ],
  },
)
export const BulkCreateShape = Type.Object({ links: Type.Array(Type.Unknown(), { minItems: 1, maxItems: LIMITS.bulk }) }, { additionalProperties: false })
export const BulkCreateEnvelope = Envelope(
  Type.Array(
    Type.Union([
      Type.Object({ ok: Type.Literal(true), link: Type.Ref('Link') }),
      Type.Object({
        ok: Type.Literal(false),
        error: Type.Object({
          code: Type.String({ examples: ['validation_error'] }),
          message: Type.String({ examples: ['destination must be an absolute http or https URL with a host'] }),
          param: Nullable(Type.String({ examples: ['destination'] })),
        }),
      }),
    ]),
  ),
)
export const BulkDeleteBody = Type.Object(
  { ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: LIMITS.bulk }) },
  { additionalProperties: false, examples: [{ ids: ['lnk_01JD0000000000000000000000'] }] },
)
export const BulkDeleteEnvelope = Envelope(
  Type.Array(Type.Object({ id: Type.String({ examples: ['lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9'] }), deleted: Type.Boolean() })),
)
