import type { LinksService } from '../links/links.service.js'
import type { Clock } from '../shared/clock.js'
import { newId } from '../shared/ids.js'
import { defaultOf } from '../shared/schema.js'
import { isForeignKeyViolation, isUniqueViolation } from '../storage/errors.js'
import type { Principal } from '../tokens/tokens.service.js'
import type { EventRecorder } from '../webhooks/events.js'
import { linkNotFound } from '../links/links.errors.js'
import { contactOrGroup, conversationNotFound, messageNotFound, pinnedMessageElsewhere } from './conversations.errors.js'
import type { ConversationsRepository } from './conversations.repository.js'
import {
  CreateMessageBody,
  type ConversationObject,
  type CreateConversationBody,
  type ListConversationsQuery,
  type MessageObject,
  type PageQuery,
  type UpdateConversationBody,
} from './conversations.schemas.js'
import type { ConversationRow, ConversationRowUpdate, MessageRow } from './conversations.table.js'
import { paginate } from './pagination.js'

const DEFAULT_DIRECTION = defaultOf(CreateMessageBody, 'direction')

const toObject = (row: ConversationRow): ConversationObject => ({
  id: row.id,
  contact_id: row.contact_id,
  group_id: row.group_id,
  link_id: row.link_id,
  pinned_message_id: row.pinned_message_id,
  is_pinned: row.is_pinned === 1,
  is_muted: row.is_muted === 1,
  last_active_at: row.last_active_at,
  last_opened_at: row.last_opened_at,
  created_at: row.created_at,
  archived_at: row.archived_at,
})

const toMessage = (row: MessageRow): MessageObject => ({
  id: row.id,
  conversation_id: row.conversation_id,
  direction: row.direction,
  text: row.text,
  created_at: row.created_at,
})

const GET_OR_CREATE_ATTEMPTS = 3

const toList = <Row, T>(page: { has_more: boolean; rows: Row[] }, map: (row: Row) => T) => ({ has_more: page.has_more, data: page.rows.map(map) })

/** The one key of a new conversation: exactly one of contact_id and group_id. */
function counterpartOf(input: CreateConversationBody): ['contact_id' | 'group_id', string] {
  if (input.contact_id !== undefined && input.group_id === undefined) return ['contact_id', input.contact_id]
  if (input.group_id !== undefined && input.contact_id === undefined) return ['group_id', input.group_id]
  throw contactOrGroup(input.contact_id === undefined ? 'contact_id' : 'group_id')
}

export function createConversationsService(deps: { repo: ConversationsRepository; links: LinksService; clock: Clock; events: EventRecorder }) {
  const { repo, links, clock, events } = deps
  const nowSeconds = () => Math.floor(clock.now() / 1000)

  async function findOwned(principal: Principal, id: string): Promise<ConversationRow> {
    const row = await repo.findForOwner(principal.ownerId, id)
    if (!row) throw conversationNotFound()
    return row
  }

  return {
    /**
     * Get-or-create, race-free: the unique (owner_id, contact_id) and (owner_id, group_id) indexes
     * decide, and the loser of a race reads the winner's row. An existing conversation is returned
     * unchanged, even when another link_id was sent.
     */
    async create(principal: Principal, input: CreateConversationBody): Promise<{ created: boolean; conversation: ConversationObject }> {
      const [column, value] = counterpartOf(input)
      const linkId = input.link_id ?? null
      if (linkId !== null) await links.assertOwned(principal, linkId, 'link_id')
      const now = nowSeconds()
      const row: ConversationRow = {
        id: newId('conv'),
        owner_id: principal.ownerId,
        contact_id: column === 'contact_id' ? value : null,
        group_id: column === 'group_id' ? value : null,
        link_id: linkId,
        pinned_message_id: null,
        is_pinned: 0,
        is_muted: 0,
        last_active_at: null,
        last_opened_at: null,
        created_at: now,
        archived_at: null,
        activity_at: now,
      }
      for (let attempt = 1; ; attempt++) {
        try {
          await repo.transaction(async (tx, trx) => {
            await tx.insert(row)
            await events.record(trx, principal.ownerId, 'conversation.created', toObject(row))
          })
          return { created: true, conversation: toObject(row) }
        } catch (error) {
          // The link was deleted between the ownership check and the insert.
          if (isForeignKeyViolation(error)) throw linkNotFound('link_id')
          if (!isUniqueViolation(error)) throw error
          const existing = await repo.findByCounterpart(principal.ownerId, column, value)
          if (existing) return { created: false, conversation: toObject(existing) }
          // Or the one that holds the key belongs to a deleted link and waits for the purge.
          await repo.deletePurgeable(principal.ownerId, column, value)
          // The conversation that won was deleted in the meantime: the key is free again.
          if (attempt === GET_OR_CREATE_ATTEMPTS) throw error
        }
      }
    },

    get: async (principal: Principal, id: string) => toObject(await findOwned(principal, id)),

    async list(principal: Principal, query: ListConversationsQuery) {
      const { ownerId } = principal
      const { muted, archived, pinned, group_id, contact_id, link_id } = query
      const filters = { muted, archived, pinned, group_id, contact_id, link_id }
      const page = await paginate(
        query,
        async (id) => {
          const row = await repo.findForOwner(ownerId, id)
          return row && { key: row.activity_at, id: row.id }
        },
        (cursor, direction, limit) => repo.list(ownerId, filters, cursor, direction, limit),
      )
      return toList(page, toObject)
    },

    async update(principal: Principal, id: string, input: UpdateConversationBody): Promise<ConversationObject> {
      const changes: ConversationRowUpdate = {}
      if (input.is_pinned !== undefined) changes.is_pinned = input.is_pinned ? 1 : 0
      if (input.is_muted !== undefined) changes.is_muted = input.is_muted ? 1 : 0
      if (input.archived_at !== undefined) changes.archived_at = input.archived_at
      if (input.pinned_message_id !== undefined) changes.pinned_message_id = input.pinned_message_id
      if (Object.keys(changes).length === 0) return toObject(await findOwned(principal, id))
      // The update locks the row first, then the pinned message is checked: a concurrent delete of
      // that message either ran before (the check fails and all rolls back) or waits and unpins.
      return repo.transaction(async (tx, trx) => {
        const row = await tx.update(principal.ownerId, id, changes)
        if (!row) throw conversationNotFound()
        const pinned = input.pinned_message_id
        if (typeof pinned === 'string' && !(await tx.findMessage(id, pinned))) throw pinnedMessageElsewhere()
        await events.record(trx, principal.ownerId, 'conversation.updated', toObject(row))
        return toObject(row)
      })
    },

    async open(principal: Principal, id: string): Promise<ConversationObject> {
      await repo.open(principal.ownerId, id, nowSeconds())
      return toObject(await findOwned(principal, id))
    },

    async delete(principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
      // Its messages go with it: messages.conversation_id cascades.
      const deleted = await repo.transaction(async (tx, trx) => {
        const row = await tx.deleteForOwner(principal.ownerId, id)
        if (row) await events.record(trx, principal.ownerId, 'conversation.deleted', { id, deleted: true })
        return row
      })
      if (!deleted) throw conversationNotFound()
      return { id, deleted: true }
    },

    async createMessage(principal: Principal, id: string, input: CreateMessageBody): Promise<MessageObject> {
      const now = nowSeconds()
      return repo.transaction(async (tx, trx) => {
        // Touching the conversation first also locks it against a concurrent delete.
        const touched = await tx.update(principal.ownerId, id, { last_active_at: now, activity_at: now })
        if (!touched) throw conversationNotFound()
        const row: MessageRow = { id: newId('msg'), conversation_id: id, direction: input.direction ?? DEFAULT_DIRECTION, text: input.text, created_at: now }
        await tx.insertMessage(row)
        await events.record(trx, principal.ownerId, 'message.created', toMessage(row))
        return toMessage(row)
      })
    },

    async listMessages(principal: Principal, id: string, query: PageQuery) {
      await findOwned(principal, id)
      const page = await paginate(
        query,
        async (messageId) => {
          const row = await repo.findMessage(id, messageId)
          return row && { key: row.created_at, id: row.id }
        },
        (cursor, direction, limit) => repo.listMessages(id, cursor, direction, limit),
      )
      return toList(page, toMessage)
    },

    async getMessage(principal: Principal, id: string, messageId: string): Promise<MessageObject> {
      await findOwned(principal, id)
      const row = await repo.findMessage(id, messageId)
      if (!row) throw messageNotFound()
      return toMessage(row)
    },

    async deleteMessage(principal: Principal, id: string, messageId: string): Promise<{ id: string; deleted: true }> {
      return repo.transaction(async (tx, trx) => {
        if (!(await tx.unpinMessage(principal.ownerId, id, messageId))) throw conversationNotFound()
        if (!(await tx.deleteMessage(id, messageId))) throw messageNotFound()
        await events.record(trx, principal.ownerId, 'message.deleted', { id: messageId, conversation_id: id, deleted: true })
        return { id: messageId, deleted: true as const }
      })
    },
  }
}
export type ConversationsService = ReturnType<typeof createConversationsService>
