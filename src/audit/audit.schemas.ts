import { Type, type Static } from 'typebox'
import { Nullable } from '../shared/schema.js'

export const AuditEntryObject = Type.Object(
  {
    id: Type.String({ examples: ['aud_01JDQ8F1G2H3J4K5M6N7P8Q9R0'], description: 'aud_…; ids are time-ordered' }),
    at: Type.String({ format: 'date-time' }),
    actor: Type.Object(
      {
        type: Type.Union([Type.Literal('user'), Type.Literal('token')]),
        id: Type.String({ examples: ['usr_01JDQ6A1B2C3D4E5F6G7H8J9K0'], description: 'usr_… or tok_…' }),
        label: Type.String({ examples: ['ada@example.com'], description: "the person's email or the token's name, as it was then" }),
      },
      { description: 'who did it' },
    ),
    action: Type.String({ description: '<resourceType>.<verb>: link.created, member.role_changed, session.failed…', examples: ['link.created'] }),
    resourceType: Type.String({ examples: ['link'] }),
    resourceId: Nullable(
      Type.String({
        examples: ['lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9'],
        description: "the resource's id (a domain's name, a member's user id); null where there is none (signing out everywhere, a failed sign-in)",
      }),
    ),
    workspaceId: Type.String({ examples: ['acme'] }),
  },
  { $id: 'AuditEntry', description: 'One change made through the API, or a sign-in' },
)
export type AuditEntryObject = Static<typeof AuditEntryObject>

const Filter = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 128, description }))

export const ListAuditLogQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    starting_after: Type.Optional(Type.String({ maxLength: 64, description: "the previous page's nextCursor (the id of its last entry)" })),
    action: Filter('only entries of this action (link.deleted)'),
    resourceType: Filter('only entries about this kind of resource (link, domain, member…)'),
    actorId: Filter('only entries by this person (usr_…) or token (tok_…)'),
  },
  { additionalProperties: false },
)
export type ListAuditLogQuery = Static<typeof ListAuditLogQuery>

export const AuditLogEnvelope = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(Type.Ref('AuditEntry')),
  pagination: Type.Object({
    limit: Type.Integer(),
    hasMore: Type.Boolean(),
    nextCursor: Nullable(Type.String({ examples: ['aud_01JDQ8F1G2H3J4K5M6N7P8Q9R0'] })),
  }),
})
