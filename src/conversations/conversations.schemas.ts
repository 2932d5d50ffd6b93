import { Type, type Static } from 'typebox'
import { Nullable, StringEnum } from '../shared/schema.js'

/** Up to 9999-12-31T23:59:59Z: a Unix-seconds value beyond it is a unit mistake (milliseconds). */
const MAX_UNIX_SECONDS = 253_402_300_799

const UnixSeconds = Type.Integer({ description: 'Unix seconds' })
const ExternalId = (what: string) => Type.String({ minLength: 1, maxLength: 128, description: `Your own identifier of the ${what} (1-128 characters)` })
const Direction = StringEnum(['outbound', 'inbound'])
const ResourceId = Type.String({ minLength: 1, maxLength: 64 })

export const ConversationObject = Type.Object(
  {
    id: Type.String({ examples: ['conv_01JDQ7Z8K9M2N3P4Q5R6S7T8V9'] }),
    contact_id: Nullable(Type.String({ examples: ['contact-42'] })),
    group_id: Nullable(Type.String({ examples: ['group-7'] })),
    link_id: Nullable(Type.String({ examples: ['lnk_01JDQ7Z8K9M2N3P4Q5R6S7T8V9'] })),
    pinned_message_id: Nullable(Type.String({ examples: ['msg_01JDQ80A1B2C3D4E5F6G7H8J9K'] })),
    is_pinned: Type.Boolean(),
    is_muted: Type.Boolean(),
    last_active_at: Nullable(UnixSeconds),
    last_opened_at: Nullable(UnixSeconds),
    created_at: UnixSeconds,
    archived_at: Nullable(UnixSeconds),
  },
  { $id: 'Conversation' },
)
export type ConversationObject = Static<typeof ConversationObject>

export const MessageObject = Type.Object(
  {
    id: Type.String({ examples: ['msg_01JDQ80A1B2C3D4E5F6G7H8J9K'] }),
    conversation_id: Type.String({ examples: ['conv_01JDQ7Z8K9M2N3P4Q5R6S7T8V9'] }),
    direction: Direction,
    text: Type.String({ examples: ['Your order has shipped.'] }),
    created_at: UnixSeconds,
  },
  { $id: 'Message' },
)
export type MessageObject = Static<typeof MessageObject>

// Ids in the path carry no constraint: any id that names nothing is 404 (docs/api/README.md#conventions).
export const ConversationIdParams = Type.Object({ id: Type.String() })
export const MessageIdParams = Type.Object({ id: Type.String(), message_id: Type.String() })

export const CreateConversationBody = Type.Object(
  {
    contact_id: Type.Optional(ExternalId('contact')),
    group_id: Type.Optional(ExternalId('group')),
    link_id: Type.Optional(Nullable(ResourceId)),
  },
  { additionalProperties: false, description: 'Exactly one of contact_id and group_id', examples: [{ contact_id: 'contact-42' }] },
)
export type CreateConversationBody = Static<typeof CreateConversationBody>

export const UpdateConversationBody = Type.Object(
  {
    is_pinned: Type.Optional(Type.Boolean()),
    is_muted: Type.Optional(Type.Boolean()),
    pinned_message_id: Type.Optional(Nullable(ResourceId)),
    archived_at: Type.Optional(
      Nullable(
        Type.Integer({ minimum: 0, maximum: MAX_UNIX_SECONDS, 'x-error': 'archived_at must be a Unix-seconds timestamp, or null (or empty) to restore' }),
      ),
    ),
  },
  { additionalProperties: false, examples: [{ is_pinned: true }] },
)
export type UpdateConversationBody = Static<typeof UpdateConversationBody>

/** An empty body, so that unknown parameters are still refused. */
export const EmptyBody = Type.Object({}, { additionalProperties: false })

const PageParams = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
  starting_after: Type.Optional(Type.String({ maxLength: 64, description: 'The id of the last item of the previous page' })),
  ending_before: Type.Optional(Type.String({ maxLength: 64, description: 'The id of the first item of the next (newer) page' })),
}

const Filter = (description: string) => Type.Optional(Type.Boolean({ description }))
export const ListConversationsQuery = Type.Object(
  {
    ...PageParams,
    muted: Filter('true: only muted; false: only the others'),
    archived: Filter('true: only archived; false: only the others'),
    pinned: Filter('true: only pinned; false: only the others'),
    group_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    contact_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    link_id: Type.Optional(ResourceId),
  },
  { additionalProperties: false },
)
export type ListConversationsQuery = Static<typeof ListConversationsQuery>

export const ListMessagesQuery = Type.Object(PageParams, { additionalProperties: false })
export type PageQuery = Static<typeof ListMessagesQuery>

export const CreateMessageBody = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 4000, description: '1-4000 characters' }),
    direction: Type.Optional(StringEnum(['outbound', 'inbound'], { default: 'outbound' })),
  },
  { additionalProperties: false, examples: [{ text: 'Your order has shipped.' }] },
)
export type CreateMessageBody = Static<typeof CreateMessageBody>

const List = (item: string) => Type.Object({ has_more: Type.Boolean(), data: Type.Array(Type.Ref(item)) })
export const ConversationList = List('Conversation')
export const MessageList = List('Message')
export const Deleted = Type.Object({ id: Type.String({ examples: ['conv_01JDQ7Z8K9M2N3P4Q5R6S7T8V9'] }), deleted: Type.Literal(true) })
