import type { Insertable, Selectable, Updateable } from 'kysely'

/** Timestamps in Unix seconds; booleans as 0/1. */
export interface ConversationsTable {
  id: string
  owner_id: string
  contact_id: string | null
  group_id: string | null
  link_id: string | null
  pinned_message_id: string | null
  is_pinned: number
  is_muted: number
  last_active_at: number | null
  last_opened_at: number | null
  created_at: number
  archived_at: number | null
  /** coalesce(last_active_at, created_at), denormalised so that one index orders the list. */
  activity_at: number
}
export type ConversationRow = Selectable<ConversationsTable>
export type NewConversationRow = Insertable<ConversationsTable>
export type ConversationRowUpdate = Updateable<ConversationsTable>

export interface MessagesTable {
  id: string
  conversation_id: string
  direction: 'outbound' | 'inbound'
  text: string
  created_at: number
}
export type MessageRow = Selectable<MessagesTable>
