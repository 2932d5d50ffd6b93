import { Type } from 'typebox'
import { CreatedBy, Envelope, Nullable, StringEnum } from '../shared/schema.js'
import { SCOPES } from '../accounts/roles.js'

const Scope = StringEnum(SCOPES)

export const TokenObject = Type.Object(
  {
    id: Type.String({ examples: ['tok_01JDQ6A1B2C3D4E5F6G7H8J9K0'] }),
    name: Nullable(Type.String({ examples: ['reporting'] })),
    ownerId: Type.String({ examples: ['acme'] }),
    scopes: Type.Array(Type.String({ examples: ['links:read'] })),
    prefix: Type.String({ examples: ['ll_Hk3v9Q'], description: 'the first characters of the token, not a secret: enough to recognise it' }),
    createdAt: Type.String({ format: 'date-time' }),
    createdBy: CreatedBy,
    lastUsedAt: Nullable(Type.String({ format: 'date-time', description: 'the last request made with it, to the minute' })),
    expiresAt: Nullable(
      Type.String({ format: 'date-time', description: 'from then on the token is refused (401) and no longer listed; null: it never expires' }),
    ),
    current: Type.Optional(Type.Boolean({ description: 'in lists: whether this is the token making the request (or behind its session)' })),
    token: Type.Optional(
      Type.String({
        examples: ['ll_Hk3v9Qp2Xr7Lm4Tz8Wc1Nb6Ys0Ud5Fe3GaK2jR8wP0v'],
        description: 'the token itself: in the response that creates it, and never again',
      }),
    ),
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
    expiresAt: Type.Optional(
      Nullable(
        Type.String({
          format: 'date-time',
          description: 'when the token stops working: a date-time in the future, at most ten years away; omitted or null: never',
          examples: ['2027-06-30T00:00:00.000Z'],
        }),
      ),
    ),
  },
  { additionalProperties: false, examples: [{ name: 'reporting', scopes: ['links:read', 'domains:read'], expiresAt: '2027-06-30T00:00:00.000Z' }] },
)

export const TokenIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
export const TokenEnvelope = Envelope(Type.Ref('Token'))
export const TokenListEnvelope = Envelope(Type.Array(Type.Ref('Token')))
export const TokenDeletedEnvelope = Envelope(Type.Object({ id: Type.String({ examples: ['tok_01JDQ6A1B2C3D4E5F6G7H8J9K0'] }), deleted: Type.Literal(true) }))
