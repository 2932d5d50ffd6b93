import { Type } from 'typebox'
import { Envelope } from '../shared/schema.js'

export const CreateSessionBody = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'An API token (ll_…); exchanged for the session cookie, never stored in the browser',
      examples: ['ll_paste-your-token-here'],
    }),
  },
  { additionalProperties: false },
)

export const SessionObject = Type.Object(
  {
    ownerId: Type.String(),
    scopes: Type.Array(Type.String()),
    tokenId: Type.String({ description: 'the token this caller acts as' }),
    via: Type.Union([Type.Literal('session'), Type.Literal('bearer')], { description: 'how this request authenticated' }),
  },
  { $id: 'Session' },
)

export const SessionEnvelope = Envelope(Type.Ref('Session'))
export const SessionDeletedEnvelope = Envelope(Type.Object({ deleted: Type.Literal(true) }))
