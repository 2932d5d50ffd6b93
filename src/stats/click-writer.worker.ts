import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { createConversationsRepository } from '../conversations/conversations.repository.js'
import { createLinkPurger } from '../links/links.purger.js'
import { createLinksRepository } from '../links/links.repository.js'
import { openStorage } from '../storage/database.js'
import type { WriterMessage, WriteReply, WriterSettings } from './click-writer.thread.js'
import { createRollup } from './click-rollup.js'
import { openGeoDatabase, type GeoDatabase } from './geoip.js'
import { createStatsRepository } from './stats.repository.js'
import { createVisitWriter } from './visit-writer.js'
import { recordClickEvents } from '../webhooks/click-events.js'

// The click writer thread (see click-writer.thread.ts): one connection, one batch at a time, in order;
// the background purge of deleted links runs here too, between batches, off the serving thread.
const settings = workerData as WriterSettings
// Redirects come first: at nice 19 the writer runs on CPU that serving leaves idle. On a saturated
// machine visits then wait in the click buffer, and beyond its bound are dropped and counted.
// On Linux a nice value belongs to a thread, so this leaves the serving thread as it was.
setPriority(settings.clickWriterNice)
const port = parentPort as NonNullable<typeof parentPort>
const storage = openStorage({ ...settings, databasePoolSize: 1 })
const stats = createStatsRepository(storage.db, storage.adapter)
// Checked at start (loadConfig); a file that fails here after all (changed since) costs the visits their
// country, not the visits: they are recorded without it, and the serving thread logs why.
let geo: GeoDatabase | undefined
try {
  geo = openGeoDatabase(settings.geoipDb)
} catch (error) {
  port.postMessage({ failed: 'geoip', error: describe(error) } satisfies WriteReply)
}
const writer = createVisitWriter(stats, createRollup(storage.db, storage.adapter, recordClickEvents), {
  shared: storage.adapter.sharedAcrossInstances,
  blockIntervalMs: settings.clickBlockIntervalMs,
  staleJournalMs: settings.staleJournalMs,
  now: () => Date.now(),
  geo,
})
const purger = createLinkPurger({
  repo: createLinksRepository(storage.db, storage.adapter),
  steps: [stats.purgeLink, createConversationsRepository(storage.db, storage.adapter).purgeLink],
  onError: (error) => port.postMessage({ failed: 'purge', error: describe(error) } satisfies WriteReply),
  batch: settings.purgeBatch,
})

function describe(error: unknown): { message: string; code: unknown } {
  const { message, code } = error as { message?: unknown; code?: unknown }
  return { message: String(message ?? error), code }
}

let queue = Promise.resolve()
port.on('message', (message: WriterMessage) => {
  if ('purge' in message) return purger.kick()
  queue = queue.then(async () => {
    if ('close' in message) {
      await purger.stop()
      await storage.close()
      port.close()
      return
    }
    let reply: WriteReply
    try {
      if ('visits' in message) await writer.write(message.visits)
      else if ('rollUp' in message) await writer.rollUp(message.rollUp.blocks)
      else if ('upkeep' in message) await writer.upkeep()
      else await purger.idle()
      reply = { id: message.id }
    } catch (error) {
      reply = { id: message.id, error: describe(error) }
    }
    port.postMessage(reply)
  })
})
