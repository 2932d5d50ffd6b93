import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { createOutboundFetch } from '../outbound/outbound.js'
import { openStorage } from '../storage/database.js'
import { createEventRecorder } from '../webhooks/webhooks.service.js'
import { createHealthRepository } from './health.repository.js'
import { createHealthScheduler } from './health.scheduler.js'
import { createHealthChecks } from './health.service.js'
import type { HealthMessage, HealthReply, HealthSettings } from './health.thread.js'

// The destination checker thread (see health.thread.ts): one connection, its own guarded client.
const settings = workerData as HealthSettings
const port = parentPort as NonNullable<typeof parentPort>
const storage = openStorage({ ...settings, databasePoolSize: 2 })
const now = () => Date.now()
const repo = createHealthRepository(storage.db)
const checks = createHealthChecks({
  db: storage.db,
  repo,
  outbound: createOutboundFetch({ allowPrivate: settings.fetchAllowPrivate }),
  events: createEventRecorder({ adapter: storage.adapter, clock: { now }, onRecorded: () => port.postMessage({ recorded: true } satisfies HealthReply) }),
  shortUrlScheme: settings.shortUrlScheme,
  now,
  timeoutMs: settings.timeoutMs,
})
const scheduler = createHealthScheduler({
  repo,
  checks,
  schedule: settings.schedule,
  holder: `${hostname()}:${process.pid}:${randomUUID()}`,
  now,
  onError: (error) => {
    const { message, code } = error as { message?: unknown; code?: unknown }
    port.postMessage({ error: { message: String(message ?? error), code } } satisfies HealthReply)
  },
})
scheduler.start()

port.on('message', (message: HealthMessage) => {
  if ('close' in message) {
    void scheduler.stop().then(async () => {
      await storage.close()
      port.close()
    })
    return
  }
  void scheduler.sweep().then((result) => port.postMessage({ id: message.id, result } satisfies HealthReply))
})
