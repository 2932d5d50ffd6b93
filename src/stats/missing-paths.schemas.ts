import { Type, type Static } from 'typebox'
import { Envelope } from '../shared/schema.js'

export const MissingPathsQuery = Type.Object(
  {
    domain: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'Only this domain (one of yours; 404 otherwise)' })),
    from: Type.Optional(Type.String({ maxLength: 64, description: 'A date (2026-11-01) or an ISO 8601 date-time; default: 30 days ago (start of day)' })),
    to: Type.Optional(Type.String({ maxLength: 64, description: 'A date (its whole day is included) or an ISO 8601 date-time; default: now' })),
  },
  { additionalProperties: false },
)
export type MissingPathsQuery = Static<typeof MissingPathsQuery>

export const MissingPathObject = Type.Object(
  {
    domain: Type.String({ examples: ['go.acme.example'] }),
    path: Type.String({
      examples: ['/summer-sael'],
      description: 'As visited (one trailing slash dropped, at most 129 characters); "(other)" sums the paths beyond the hourly bound',
    }),
    clicks: Type.Integer({ description: 'Human visits in the range' }),
    lastAt: Type.String({ format: 'date-time', description: 'The latest of them' }),
  },
  { $id: 'MissingPath' },
)
export type MissingPathObject = Static<typeof MissingPathObject>

export const MissingPathsEnvelope = Envelope(
  Type.Array(Type.Ref('MissingPath'), { description: 'At most 50, the most visited first (ties by domain, then path)' }),
)
