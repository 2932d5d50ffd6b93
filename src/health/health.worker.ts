import { createOutboundFetch } from '../outbound/outbound.js'
import { openStorage } from '../storage/database.js'
import { createEventRecorder } from '../webhooks/webhooks.service.js'
import { createHealthRepository } from './health.repository.js'
import { createHealthScheduler, type SweepResult } from './health.scheduler.js'
import { createHealthChecks } from './health.service.js'
import type { HealthReply, SweepTask } from './health.thread.js'

/**
 * One sweep, in the thread started for it (see health.thread.ts): a connection of its own and its own
 * guarded client, both closed when the sweep is over; a message on the port stops it after the checks
 * in flight.
 */
export default async function sweep({ settings, holder, port }: SweepTask): Promise<SweepResult> {
  const storage = openStorage({ ...settings, databasePoolSize: 2 })
  const now = () => Date.now()
  const repo = createHealthRepository(storage.db)
  const scheduler = createHealthScheduler({
    repo,
    checks: createHealthChecks({
      db: storage.db,
      repo,
      outbound: createOutboundFetch({ allowPrivate: settings.fetchAllowPrivate }),
      events: createEventRecorder({ adapter: storage.adapter, clock: { now }, onRecorded: () => port.postMessage({ recorded: true } satisfies HealthReply) }),
      shortUrlScheme: settings.shortUrlScheme,
      now,
      timeoutMs: settings.timeoutMs,
    }),
    schedule: settings.schedule,
    holder,
    now,
    onError: (error) => {
      const { message, code } = error as { message?: unknown; code?: unknown }
      port.postMessage({ error: { message: String(message ?? error), code } } satisfies HealthReply)
    },
  })
  let stopping: Promise<void> | undefined
  port.on('message', () => {
    stopping ??= scheduler.stop()
  })
  try {
    return await scheduler.sweep()
  } finally {
    await stopping
    await storage.close()
    port.close()
  }
}
