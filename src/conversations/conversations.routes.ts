import { Type } from 'typebox'
import { resourceFirst } from '../http/resource-first.js'
import type { App } from '../http/types.js'
import { errorResponses } from '../shared/schema.js'
import {
  ConversationIdParams,
  ConversationList,
  CreateConversationBody,
  CreateMessageBody,
  Deleted,
  EmptyBody,
  ListConversationsQuery,
  ListMessagesQuery,
  MessageIdParams,
  MessageList,
  UpdateConversationBody,
} from './conversations.schemas.js'
import type { ConversationsService } from './conversations.service.js'
import { principalOf } from '../http/auth.js'

const tags = ['conversations']
const security = [{ bearer: [] }]
const read = { scope: 'conversations:read' as const }
const write = { scope: 'conversations:write' as const }
const conversation = Type.Ref('Conversation')
const message = Type.Ref('Message')

/** Conversations and their messages: bare objects, no envelope (docs/api/conversations.md). */
export function conversationsRoutes(app: App, { conversations }: { conversations: ConversationsService }): void {
  const ownConversation = resourceFirst((req, id) => conversations.get(principalOf(req), id))
  app.get(
    '/v1/conversations',
    {
      config: read,
      schema: {
        tags,
        security,
        summary: 'List your conversations, most recently active first',
        description:
          'Ordered by last activity (or creation), newest first; `limit` 1–100 (default 10) with `starting_after` or `ending_before` cursors. Filter with `muted`, `archived`, `pinned` (`true` only those, `false` only the others), `contact_id`, `group_id` and `link_id`. The answer is `{has_more, data}`.',
        querystring: ListConversationsQuery,
        response: { 200: ConversationList, ...errorResponses },
      },
    },
    async (req) => conversations.list(principalOf(req), req.query),
  )

  app.post(
    '/v1/conversations',
    {
      // 200: the conversation existed already, nothing changed.
      config: { ...write, audit: { resource: 'conversation', action: { 201: 'created', 200: null } } },
      schema: {
        tags,
        security,
        summary: 'Get or create the conversation with a contact or a group (201 created, 200 existing)',
        description:
          'There is one conversation per contact or group: asking again returns the existing one with 200 and creates nothing. Exactly one of `contact_id` and `group_id`; `link_id`, when sent, must be one of your links (404 otherwise) and ties the conversation to it.',
        body: CreateConversationBody,
        response: { 200: conversation, 201: conversation, ...errorResponses },
      },
    },
    async (req, reply) => {
      const { created, conversation: object } = await conversations.create(principalOf(req), req.body)
      return reply.code(created ? 201 : 200).send(object)
    },
  )

  app.get(
    '/v1/conversations/:id',
    {
      config: read,
      schema: {
        tags,
        security,
        summary: 'Retrieve a conversation (changes nothing)',
        description: 'Reading never moves `last_opened_at`; mark a conversation read with `POST /v1/conversations/{id}/open`. Timestamps are Unix seconds.',
        params: ConversationIdParams,
        response: { 200: conversation, ...errorResponses },
      },
    },
    async (req) => conversations.get(principalOf(req), req.params.id),
  )

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/v1/conversations/:id',
      config: { ...write, audit: { resource: 'conversation' } },
      preValidation: ownConversation,
      schema: {
        tags,
        security,
        summary: 'Update a conversation (partial): pin, mute, archive or restore, pinned message',
        description:
          'Send any of `is_pinned`, `is_muted`, `archived_at` (a Unix time archives, `null` restores) and `pinned_message_id` (a message of this conversation; `null` unpins). Fields not sent stay as they are.',
        params: ConversationIdParams,
        body: UpdateConversationBody,
        response: { 200: conversation, ...errorResponses },
      },
      handler: async (req) => conversations.update(principalOf(req), req.params.id, req.body),
    })
  }

  app.post(
    '/v1/conversations/:id/open',
    {
      config: { ...write, audit: { resource: 'conversation', action: 'opened', id: 'id' } },
      preValidation: ownConversation,
      schema: {
        tags,
        security,
        summary: 'Mark a conversation opened now (last_opened_at never moves back)',
        description: 'Sets `last_opened_at` to now: a conversation whose `last_active_at` is later has unread messages.',
        params: ConversationIdParams,
        body: EmptyBody,
        response: { 200: conversation, ...errorResponses },
      },
    },
    async (req) => conversations.open(principalOf(req), req.params.id),
  )

  app.delete(
    '/v1/conversations/:id',
    {
      config: { ...write, audit: { resource: 'conversation' } },
      schema: {
        tags,
        security,
        summary: 'Delete a conversation and its messages',
        description: 'Permanent: the conversation and every message in it go.',
        params: ConversationIdParams,
        response: { 200: Deleted, ...errorResponses },
      },
    },
    async (req) => conversations.delete(principalOf(req), req.params.id),
  )

  app.post(
    '/v1/conversations/:id/messages',
    {
      config: { ...write, audit: { resource: 'message' } },
      preValidation: ownConversation,
      schema: {
        tags,
        security,
        summary: "Add a message (moves the conversation's last_active_at)",
        description:
          "`text` of 1–4000 characters; `direction` is `outbound` (sent by you, the default) or `inbound` (received). The conversation's `last_active_at` becomes the message's time.",
        params: ConversationIdParams,
        body: CreateMessageBody,
        response: { 201: message, ...errorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await conversations.createMessage(principalOf(req), req.params.id, req.body)),
  )

  app.get(
    '/v1/conversations/:id/messages',
    {
      config: read,
      preValidation: ownConversation,
      schema: {
        tags,
        security,
        summary: "List a conversation's messages, newest first",
        description: '`limit` 1–100 (default 10) with `starting_after` or `ending_before` cursors; the answer is `{has_more, data}`.',
        params: ConversationIdParams,
        querystring: ListMessagesQuery,
        response: { 200: MessageList, ...errorResponses },
      },
    },
    async (req) => conversations.listMessages(principalOf(req), req.params.id, req.query),
  )

  app.get(
    '/v1/conversations/:id/messages/:message_id',
    {
      config: read,
      schema: {
        tags,
        security,
        summary: 'Retrieve a message',
        description: 'One message of the conversation; a message of another conversation is 404.',
        params: MessageIdParams,
        response: { 200: message, ...errorResponses },
      },
    },
    async (req) => conversations.getMessage(principalOf(req), req.params.id, req.params.message_id),
  )

  app.delete(
    '/v1/conversations/:id/messages/:message_id',
    {
      config: { ...write, audit: { resource: 'message', id: 'message_id' } },
      schema: {
        tags,
        security,
        summary: 'Delete a message (unpins it if it was the pinned message)',
        description: "Permanent. When the message was the conversation's pinned message, `pinned_message_id` becomes `null`.",
        params: MessageIdParams,
        response: { 200: Deleted, ...errorResponses },
      },
    },
    async (req) => conversations.deleteMessage(principalOf(req), req.params.id, req.params.message_id),
  )
}
