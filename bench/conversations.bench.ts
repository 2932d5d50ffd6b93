import type { NewConversationRow } from '../src/conversations/conversations.table.js'
import { newId } from '../src/shared/ids.js'
import type { Db } from '../src/storage/database.js'
import { pageOf, type Read } from './reads.js'
import { insertInBatches } from './seed.js'

const EPOCH_SECONDS = Date.UTC(2025, 0, 1) / 1000

/**
 * `count` conversations of `owner`, one per contact: every 3rd active after its creation, every 10th
 * muted, every 100th pinned, every 20th archived. Returns the id of the middle one (a cursor).
 */
export async function seedConversations(db: Db, owner: string, count: number): Promise<string> {
  const ids = Array.from({ length: count }, () => newId('conv'))
  await insertInBatches(db, 'conversations', count, (i): NewConversationRow => {
    const createdAt = EPOCH_SECONDS + i
    const lastActiveAt = i % 3 === 0 ? createdAt + 1000 : null
    return {
      id: ids[i] as string,
      owner_id: owner,
      contact_id: `c_${i}`,
      is_muted: i % 10 === 0 ? 1 : 0,
      is_pinned: i % 100 === 0 ? 1 : 0,
      last_active_at: lastActiveAt,
      created_at: createdAt,
      archived_at: i % 20 === 0 ? createdAt + 50 : null,
      activity_at: lastActiveAt ?? createdAt,
    }
  })
  return ids[Math.floor(count / 2)] as string
}

/** The conversation list, first page (10) unless said otherwise. */
export function conversationReads(count: number, middleId: string): Read[] {
  const contacts = Array.from({ length: 100 }, (_, k) => `/v1/conversations?contact_id=c_${Math.floor((k * count) / 100)}`)
  return [
    { name: 'GET /v1/conversations (most recently active first)', paths: ['/v1/conversations'], ...pageOf(10) },
    { name: 'GET /v1/conversations?muted=true (1 in 10)', paths: ['/v1/conversations?muted=true'], ...pageOf(10) },
    { name: 'GET /v1/conversations?pinned=true (1 in 100)', paths: ['/v1/conversations?pinned=true'], ...pageOf(10) },
    { name: 'GET /v1/conversations?contact_id=… (1 match)', paths: contacts, ...pageOf(1) },
    { name: 'GET /v1/conversations?starting_after=… (middle of the list)', paths: [`/v1/conversations?starting_after=${middleId}`], ...pageOf(10) },
  ]
}
