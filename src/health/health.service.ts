import type { OutboundFetch } from '../outbound/outbound.js'
import { linkObjectOf } from '../links/link-writes.js'
import type { LinkRow } from '../links/links.table.js'
import type { Db } from '../storage/database.js'
import { inTransaction } from '../storage/transaction.js'
import type { EventRecorder } from '../webhooks/events.js'
import { checkDestination, nextHealth, type CheckOutcome } from './health.check.js'
import type { DueLink, HealthRepository } from './health.repository.js'

/** Writes of one verdict tried again after another check wrote first (each retry reads the newer state). */
const WRITE_ATTEMPTS = 5

/**
 * One check of a link's destination and its verdict, shared by the background checker (in its
 * thread) and `POST /v1/links/{id}/check` (in the serving thread): the verdict, and the `link.broken`
 * event when it turns the link broken, are written in one transaction, conditionally, so that a turn
 * is recorded once however many checks run at once.
 */
export function createHealthChecks(deps: {
  db: Db
  repo: HealthRepository
  outbound: OutboundFetch
  events: EventRecorder
  shortUrlScheme: 'http' | 'https'
  now: () => number
  /** The whole check, by default the guarded client's 10 s; tests shorten it. */
  timeoutMs?: number
}) {
  const { repo } = deps

  /** The link after the verdict; undefined when it is gone or its destination changed meanwhile (the verdict is then moot). */
  async function record(link: DueLink, outcome: CheckOutcome): Promise<LinkRow | undefined> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const done = await inTransaction(deps.db, async (trx) => {
        const row = await repo.find(trx, link.id)
        if (!row || row.destination !== link.destination) return { row: undefined }
        const previous = { status: row.health_status, failures: row.health_failures }
        const next = nextHealth(previous, outcome)
        const now = deps.now()
        if (!(await repo.write(trx, link.id, previous, next, outcome, now))) return undefined
        const updated: LinkRow = {
          ...row,
          health_status: next.status,
          health_failures: next.failures,
          health_http_status: outcome.httpStatus,
          health_error: outcome.error,
          health_checked_at: now,
        }
        if (next.status === 'broken' && previous.status !== 'broken') {
          await deps.events.record(trx, row.owner_id, 'link.broken', linkObjectOf(updated, await repo.tagsOf(trx, link.id), deps.shortUrlScheme))
        }
        return { row: updated }
      })
      if (done) return done.row
    }
    throw new Error(`the health of link ${link.id} changed under ${WRITE_ATTEMPTS} writes in a row`)
  }

  return {
    /** Checks the destination now and records the verdict. */
    check: async (link: DueLink): Promise<LinkRow | undefined> => record(link, await checkDestination(deps.outbound, link.destination, deps.timeoutMs)),
  }
}
export type HealthChecks = ReturnType<typeof createHealthChecks>
