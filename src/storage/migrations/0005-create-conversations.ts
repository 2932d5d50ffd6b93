import type { Kysely } from 'kysely'

/**
 * Conversations and their messages. Timestamps are Unix seconds (the unit of the API, and the unit
 * in which the API defines the order of the list); booleans are integers 0/1 on both dialects.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text')
    .addColumn('group_id', 'text')
    .addColumn('link_id', 'text', (c) => c.references('links.id').onDelete('cascade'))
    // No foreign key: it would close a cycle with messages.conversation_id. The service keeps it
    // pointing at a message of this conversation (checked on write, cleared when the message goes).
    .addColumn('pinned_message_id', 'text')
    .addColumn('is_pinned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_muted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_active_at', 'bigint')
    .addColumn('last_opened_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('archived_at', 'bigint')
    // coalesce(last_active_at, created_at), kept on every write so that one index orders the list.
    .addColumn('activity_at', 'bigint', (c) => c.notNull())
    .execute()
  // The list, most recently active first, and its keyset cursors.
  await db.schema.createIndex('conversations_owner_activity').on('conversations').columns(['owner_id', 'activity_at', 'id']).execute()
  // One conversation per contact and per group: get-or-create rests on these (NULLs never collide).
  await db.schema.createIndex('conversations_owner_contact').on('conversations').columns(['owner_id', 'contact_id']).unique().execute()
  await db.schema.createIndex('conversations_owner_group').on('conversations').columns(['owner_id', 'group_id']).unique().execute()
  // The link_id filter, and the cascade when a link is deleted (without it SQLite scans the table).
  await db.schema.createIndex('conversations_link_activity').on('conversations').columns(['link_id', 'activity_at', 'id']).execute()

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  // The message list (newest first, keyset cursors) and the cascade when a conversation is deleted.
  await db.schema.createIndex('messages_conversation_created').on('messages').columns(['conversation_id', 'created_at', 'id']).execute()
}
