import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Db } from '../storage/database.js'
import { isOneOf, type DialectAdapter } from '../storage/dialect.js'
import type { Database } from '../storage/schema.js'
import { transactional } from '../storage/transaction.js'
import type { ConversationRow, ConversationRowUpdate, MessageRow, NewConversationRow } from './conversations.table.js'
import type { Cursor, Direction } from './pagination.js'

export interface ConversationFilters {
  muted?: boolean
  archived?: boolean
  pinned?: boolean
  group_id?: string
  contact_id?: string
  link_id?: string
}

const order = (direction: Direction) => (direction === 'older' ? 'desc' : 'asc')
/** Conversations per purge batch whose messages go first. */
const PURGED_CONVERSATIONS = 100

/**
 * A deleted link's conversations are gone for every reader at once; the background purge removes
 * them later (links.purger.ts). Cheap: a primary-key probe, for conversations that name a link.
 */
const visible = (eb: ExpressionBuilder<Database, 'conversations'>) =>
  eb.or([
    eb('conversations.link_id', 'is', null),
    eb.not(eb.exists(eb.selectFrom('links').select('links.id').whereRef('links.id', '=', 'conversations.link_id').where('links.deleted_at', 'is not', null))),
  ])

/**
 * Rows strictly past the cursor in the direction of travel. The bound on the key alone is implied
 * by the rest; it is there so that SQLite and PostgreSQL both seek in the (…, key, id) index rather
 * than read the list from its start and filter.
 */
function pastCursor(key: 'activity_at' | 'created_at', cursor: Cursor, direction: Direction): Expression<SqlBool> {
  const strict = sql.raw(direction === 'older' ? '<' : '>')
  const loose = sql.raw(direction === 'older' ? '<=' : '>=')
  const column = sql.ref(key)
  return sql<SqlBool>`(${column} ${loose} ${cursor.key} and (${column} ${strict} ${cursor.key} or id ${strict} ${cursor.id}))`
}

/** The queries on conversations and their messages, bound to `db` or to a transaction. */
function queries(db: Db) {
  const owned = (ownerId: string, id: string) => db.selectFrom('conversations').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).where(visible)

  /** One page in the direction of travel, served by (owner_id, activity_at, id): no sort step. */
  const listQuery = (ownerId: string, filters: ConversationFilters, cursor: Cursor | undefined, direction: Direction, limit: number) => {
    let query = db.selectFrom('conversations').selectAll().where('owner_id', '=', ownerId).where(visible)
    if (filters.muted !== undefined) query = query.where('is_muted', '=', filters.muted ? 1 : 0)
    if (filters.pinned !== undefined) query = query.where('is_pinned', '=', filters.pinned ? 1 : 0)
    if (filters.archived !== undefined) query = query.where('archived_at', filters.archived ? 'is not' : 'is', null)
    for (const column of ['group_id', 'contact_id', 'link_id'] as const) {
      const value = filters[column]
      if (value !== undefined) query = query.where(column, '=', value)
    }
    if (cursor) query = query.where(pastCursor('activity_at', cursor, direction))
    return query.orderBy('activity_at', order(direction)).orderBy('id', order(direction)).limit(limit)
  }
  /** One page, served by (conversation_id, created_at, id). */
  const listMessagesQuery = (conversationId: string, cursor: Cursor | undefined, direction: Direction, limit: number) => {
    let query = db.selectFrom('messages').selectAll().where('conversation_id', '=', conversationId)
    if (cursor) query = query.where(pastCursor('created_at', cursor, direction))
    return query.orderBy('created_at', order(direction)).orderBy('id', order(direction)).limit(limit)
  }

  return {
    listQuery,
    listMessagesQuery,
    async insert(row: NewConversationRow): Promise<void> {
      await db.insertInto('conversations').values(row).execute()
    },
    findForOwner: (ownerId: string, id: string): Promise<ConversationRow | undefined> => owned(ownerId, id).executeTakeFirst(),
    findByCounterpart: (ownerId: string, column: 'contact_id' | 'group_id', value: string): Promise<ConversationRow | undefined> =>
      db.selectFrom('conversations').selectAll().where('owner_id', '=', ownerId).where(column, '=', value).where(visible).executeTakeFirst(),

    /**
     * Deletes the counterpart's conversation if it only waits for the purge (its link was deleted),
     * so that a new conversation with that counterpart can be created now. One conversation: bounded.
     */
    async deletePurgeable(ownerId: string, column: 'contact_id' | 'group_id', value: string): Promise<void> {
      await db
        .deleteFrom('conversations')
        .where('owner_id', '=', ownerId)
        .where(column, '=', value)
        .where((eb) => eb.not(visible(eb)))
        .execute()
    },

    list: (...args: Parameters<typeof listQuery>): Promise<ConversationRow[]> => listQuery(...args).execute(),

    /** Applies the changes and returns the row, or undefined when the owner has no such conversation. */
    update: (ownerId: string, id: string, changes: ConversationRowUpdate): Promise<ConversationRow | undefined> =>
      db.updateTable('conversations').set(changes).where('id', '=', id).where('owner_id', '=', ownerId).where(visible).returningAll().executeTakeFirst(),

    /** Moves last_opened_at to `now`, never backwards. */
    async open(ownerId: string, id: string, now: number): Promise<void> {
      await db
        .updateTable('conversations')
        .set({ last_opened_at: now })
        .where('id', '=', id)
        .where('owner_id', '=', ownerId)
        .where(visible)
        .where((eb) => eb.or([eb('last_opened_at', 'is', null), eb('last_opened_at', '<', now)]))
        .execute()
    },

    /**
     * Clears the pin if it names this message. It updates (and so locks) the conversation row even
     * when the pin is elsewhere, so that a concurrent pin of the same message waits for the delete.
     */
    unpinMessage: (ownerId: string, id: string, messageId: string): Promise<{ id: string } | undefined> =>
      db
        .updateTable('conversations')
        .set((eb) => ({ pinned_message_id: eb.fn<string | null>('nullif', ['pinned_message_id', eb.val(messageId)]) }))
        .where('id', '=', id)
        .where('owner_id', '=', ownerId)
        .where(visible)
        .returning('id')
        .executeTakeFirst(),

    deleteForOwner: (ownerId: string, id: string): Promise<{ id: string } | undefined> =>
      db.deleteFrom('conversations').where('id', '=', id).where('owner_id', '=', ownerId).where(visible).returning('id').executeTakeFirst(),

    async insertMessage(row: MessageRow): Promise<void> {
      await db.insertInto('messages').values(row).execute()
    },
    findMessage: (conversationId: string, id: string): Promise<MessageRow | undefined> =>
      db.selectFrom('messages').selectAll().where('id', '=', id).where('conversation_id', '=', conversationId).executeTakeFirst(),

    listMessages: (...args: Parameters<typeof listMessagesQuery>): Promise<MessageRow[]> => listMessagesQuery(...args).execute(),

    deleteMessage: (conversationId: string, id: string): Promise<{ id: string } | undefined> =>
      db.deleteFrom('messages').where('id', '=', id).where('conversation_id', '=', conversationId).returning('id').executeTakeFirst(),
  }
}
export function createConversationsRepository(db: Db, dialect: DialectAdapter) {
  return {
    ...queries(db),
    /** One batch of a deleted link's conversations (links.purger.ts): their messages first, then the conversations. */
    async purgeLink(linkId: string, limit: number): Promise<number> {
      const ids = (await db.selectFrom('conversations').select('id').where('link_id', '=', linkId).limit(PURGED_CONVERSATIONS).execute()).map((r) => r.id)
      if (ids.length === 0) return 0
      const messages = await dialect.deleteBatch(db, 'messages', isOneOf('conversation_id', ids), limit)
      return messages > 0 ? messages : dialect.deleteBatch(db, 'conversations', isOneOf('id', ids), limit)
    },
    /** Runs `work` in one transaction, over the same queries bound to it; again if it lost a deadlock. */
    transaction: transactional(db, queries),
  }
}
export type ConversationsRepository = ReturnType<typeof createConversationsRepository>
