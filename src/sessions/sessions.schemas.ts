import { Type } from 'typebox'
import { PASSWORD_MAX_LENGTH } from '../accounts/accounts.service.js'
import { Envelope, Nullable } from '../shared/schema.js'

export const CreateSessionBody = Type.Object(
  {
    email: Type.Optional(Type.String({ maxLength: 320, description: "a person's email; with `password`", examples: ['ada@example.com'] })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, description: 'with `email`' })),
    token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'or an API token (ll_…), exchanged for the session cookie and never stored in the browser',
        examples: ['ll_paste-your-token-here'],
      }),
    ),
  },
  // The whole body's example, which /docs sends as it is: one way in, not the three fields together.
  {
    additionalProperties: false,
    description: 'either `email` and `password`, or `token`',
    examples: [{ email: 'ada@example.com', password: 'correct horse battery' }],
  },
)

export const SwitchWorkspaceBody = Type.Object(
  { workspaceId: Type.String({ minLength: 1, maxLength: 128, description: 'one of your workspaces (GET /v1/me)', examples: ['default'] }) },
  { additionalProperties: false },
)

export const SessionObject = Type.Object(
  {
    ownerId: Type.String({ examples: ['acme'], description: 'the workspace acted in' }),
    scopes: Type.Array(Type.String({ examples: ['links:read'] })),
    tokenId: Nullable(Type.String({ examples: ['tok_01JDQ6A1B2C3D4E5F6G7H8J9K0'], description: 'the token this caller acts as; null for a signed-in person' })),
    userId: Nullable(
      Type.String({ examples: ['usr_01JDQ6A1B2C3D4E5F6G7H8J9K0'], description: 'the person behind the request: signed in, or who made the token' }),
    ),
    via: Type.Union([Type.Literal('session'), Type.Literal('bearer')], { description: 'how this request authenticated' }),
  },
  { $id: 'Session' },
)

export const SessionEnvelope = Envelope(Type.Ref('Session'))
export const SessionDeletedEnvelope = Envelope(Type.Object({ deleted: Type.Literal(true) }))
export const SessionsDeletedEnvelope = Envelope(Type.Object({ deleted: Type.Integer({ description: 'how many sessions ended, this one included' }) }))
