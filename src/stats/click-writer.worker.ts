import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { sql } from 'kysely'
import { openStorage } from '../storage/database.js'
import { decodeVisits, type WriteReply, type WriterSettings } from './click-writer.thread.js'
import { createStatsRepository } from './stats.repository.js'
import { createVisitWriter } from './visit-writer.js'
import { recordClickEvents } from '../webhooks/click-events.js'

// The click writer thread (see click-writer.thread.ts): one connection, one batch at a time, in order.
const settings = workerData as WriterSettings
// Redirects come first: at nice 19 the writer runs on CPU that serving leaves idle. On a saturated
// machine visits then wait in the click buffer, and beyond its bound are dropped and counted.
// On Linux a nice value belongs to a thread, so this leaves the serving thread as it was.
setPriority(settings.clickWriterNice)
const port = parentPort as NonNullable<typeof parentPort>
const storage = openStorage({ ...settings, databasePoolSize: 1 })
// The staging tables and GROUP BY sorts of a batch stay in memory rather than in temporary files (only
// on this connection: the server's own large sorts, such as a deep page of links, keep using files).
if (storage.dialect === 'sqlite') await sql`pragma temp_store = memory`.execute(storage.db)
const write = createVisitWriter(createStatsRepository(storage.db, storage.dialect, (staging) => recordClickEvents(staging, Date.now())))

let queue = Promise.resolve()
port.on('message', (message: { id: number; visits: unknown[] } | { close: true }) => {
  queue = queue.then(async () => {
    if ('close' in message) {
      await storage.close()
      port.close()
      return
    }
    let reply: WriteReply
    try {
      await write(decodeVisits(message.visits))
      reply = { id: message.id }
    } catch (error) {
      const { message: text, code } = error as { message?: unknown; code?: unknown }
      reply = { id: message.id, error: { message: String(text ?? error), code } }
    }
    port.postMessage(reply)
  })
})
