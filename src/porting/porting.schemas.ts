import { Type, type Static } from 'typebox'
import { LinkFiltersQuery } from '../links/links.schemas.js'
import { StringEnum } from '../shared/schema.js'
import { EXPORT_FORMATS } from './porting.format.js'

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
