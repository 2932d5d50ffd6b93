import { Type } from 'typebox'
import { CreatedBy, Envelope, Nullable, StringEnum } from '../shared/schema.js'
import { SCOPES } from '../accounts/roles.js'

const Scope = StringEnum(SCOPES)

export const TokenObject = Type.Object(
  {
    id: Type.String(),
    name: Nullable(Type.String()),
    ownerId: Type.String(),
    scopes: Type.Array(Type.String()),
    prefix: Type.String({ description: 'the first characters of the token, not a secret: enough to recognise it' }),
    createdAt: Type.String({ format: 'date-time' }),
    createdBy: CreatedBy,
    lastUsedAt: Nullable(Type.String({ format: 'date-time', description: 'the last request made with it, to the minute' })),
    current: Type.Optional(Type.Boolean({ description: 'in lists: whether this is the token making the request (or behind its session)' })),
    token: Type.Optional(Type.String({ description: 'the token itself: in the response that creates it, and never again' })),
  },
  { $id: 'Token' },
)

export const CreateTokenBody = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()], { examples: ['reporting'] })),
    scopes: Type.Optional(
      Type.Array(Scope, {
        minItems: 1,
        maxItems: SCOPES.length,
        description: 'at most the scopes of the token making the request; omitted: exactly those',
        examples: [['links:read', 'domains:read']],
      }),
    ),
  },
  { additionalProperties: false },
)

export const TokenIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
export const TokenEnvelope = Envelope(Type.Ref('Token'))
export const TokenListEnvelope = Envelope(Type.Array(Type.Ref('Token')))
export const TokenDeletedEnvelope = Envelope(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }))
