import { Type, type Static } from 'typebox'
import { LinkFiltersQuery } from '../links/links.schemas.js'
import { Envelope, Nullable, StringEnum } from '../shared/schema.js'
import { EXPORT_FORMATS } from './porting.format.js'
import { IMPORT_FORMATS } from './porting.peers.js'

const Format = StringEnum(EXPORT_FORMATS, { default: 'csv', description: 'csv: a header row, then one row per item; ndjson: one JSON object per line' })

export const ExportLinksQuery = Type.Object({ format: Type.Optional(Format), query: Type.Optional(LinkFiltersQuery) }, { additionalProperties: false })
export type ExportLinksQuery = Static<typeof ExportLinksQuery>

export const ExportClicksQuery = Type.Object(
  {
    format: Type.Optional(Format),
    from: Type.Optional(
      Type.String({ maxLength: 64, description: 'A date (2026-11-01) or an ISO 8601 date-time; default and earliest: the start of the retention period' }),
    ),
    to: Type.Optional(Type.String({ maxLength: 64, description: 'Exclusive; a date includes its whole day; default: now' })),
  },
  { additionalProperties: false },
)
export type ExportClicksQuery = Static<typeof ExportClicksQuery>

/** The OpenAPI description of a streamed export (the body is not JSON, so nothing is serialized from this). */
export const exportResponses = (what: string) => ({
  200: {
    description: `${what}, streamed`,
    content: {
      'text/csv': { schema: { type: 'string' } },
      'application/x-ndjson': { schema: { type: 'string', description: 'One JSON object per line' } },
    },
  },
})

/** The largest import file the API takes (413 beyond): the CLI has no limit. */
export const IMPORT_BODY_LIMIT = 5 * 1024 * 1024

export const ImportLinksQuery = Type.Object(
  {
    format: Type.Optional(
      StringEnum(IMPORT_FORMATS, {
        description: "The file's format; when absent, told from its start (a JSON link per line: ndjson; other JSON: kutt; else the CSV header's columns)",
      }),
    ),
    dryRun: Type.Optional(Type.Boolean({ default: false, description: 'true: check every row and report, write nothing' })),
  },
  { additionalProperties: false },
)
export type ImportLinksQuery = Static<typeof ImportLinksQuery>

/** The file's text, as it is: the body is never parsed as JSON or a form. */
export const ImportLinksBody = Type.String({
  description: `The import file's text (at most ${IMPORT_BODY_LIMIT / 1024 / 1024} MiB), sent with Content-Type text/csv, application/json or text/plain`,
  examples: ['destination,path,title,tags\nhttps://example.com/spring-sale,/spring,Spring sale,sale|spring\n'],
})

const RowError = Type.Object({
  code: Type.String({ examples: ['validation_error'] }),
  message: Type.String({ examples: ['destination must be an absolute http or https URL with a host'] }),
  param: Nullable(Type.String({ examples: ['destination'] })),
})

export const ImportRowResult = Type.Object(
  {
    line: Type.Integer({
      minimum: 1,
      description: "The row's line in the file (the CSV header is line 1; a row spanning lines: its first); in a Kutt JSON file, the item's position",
    }),
    status: StringEnum(['created', 'skipped', 'failed'] as const, {
      description: 'created (in a dry run: would be); skipped: the same link is there already; failed: see error',
    }),
    path: Nullable(
      Type.String({
        examples: ['/spring'],
        description: "The link's path; for a failed row, the one it asked for; null when none is known yet (a random path in a dry run)",
      }),
    ),
    link: Type.Optional(Type.Ref('Link', { description: 'The link created or already there; absent in a dry run for a row that would be created' })),
    error: Type.Optional(RowError),
  },
  { additionalProperties: false },
)
export type ImportRowResult = Static<typeof ImportRowResult>

export const ImportEnvelope = Envelope(
  Type.Object({
    format: StringEnum(IMPORT_FORMATS, { description: 'The format the file was read as: the one named, or the one told from its start' }),
    dryRun: Type.Boolean(),
    created: Type.Integer({ description: 'Rows created (in a dry run: that would be)' }),
    skipped: Type.Integer({ description: 'Rows whose link is already there, identical: nothing is written' }),
    failed: Type.Integer({ description: 'Rows refused, each with its reason in results' }),
    moved: Type.Array(
      Type.Object({
        from: Type.String({ examples: ['bit.ly'] }),
        to: Type.String({ examples: ['short.example'] }),
        links: Type.Integer({ examples: [2] }),
      }),
      { description: 'Links whose host on the service they come from is not one of yours here: how many went to which domain instead' },
    ),
    results: Type.Array(ImportRowResult, { description: 'One per row, in file order' }),
  }),
)
export type ImportEnvelope = Static<typeof ImportEnvelope>
