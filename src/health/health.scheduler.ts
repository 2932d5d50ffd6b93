import { setTimeout as sleep } from 'node:timers/promises'
import { isSqliteBusy } from '../storage/errors.js'
import type { HealthChecks } from './health.service.js'
import type { DueLink, HealthRepository } from './health.repository.js'

/** Links read per batch: what the checker holds in memory at a time. */
export const HEALTH_BATCH = 20
/** The lease's name in health_leases. */
export const HEALTH_LEASE = 'health-checker'
/** How long a lease holds without renewal: a crashed checker's lease frees itself after this. */
export const HEALTH_LEASE_MS = 60_000
/** How often the server looks for due links (health.thread.ts). */
export const HEALTH_POLL_MS = 60_000
/** Between two requests to one host. */
export const HEALTH_HOST_INTERVAL_MS = 1000
/** The pause after a write of the sweep gave up waiting for SQLite's lock, before the sweep goes on. */
export const HEALTH_BUSY_PAUSE_MS = 5000

export interface SweepResult {
  /** Whether this instance held the lease (false: another instance checks). */
  readonly held: boolean
  /** Links checked in this sweep. */
  readonly checked: number
}

export interface HealthSchedule {
  /** Links are checked again once their last check is this old. */
  readonly intervalMs: number
  readonly concurrency: number
  readonly hostIntervalMs?: number
  readonly leaseMs?: number
  readonly busyPauseMs?: number
}

/** The host a destination's check is paced by (its first hop; redirects are not paced apart). */
const hostOf = (url: string): string => (URL.canParse(url) ? new URL(url).host : url)

/**
 * The background checker: while it holds the lease, it takes the links due (never checked, or checked
 * `intervalMs` ago) in batches of HEALTH_BATCH, the longest unchecked first, and checks each batch with
 * at most `concurrency` requests at once and one request per host per `hostIntervalMs`, until none is
 * due. The lease (a row renewed before every batch) lets one instance at a time check: the others only
 * try to take it at their sweeps, and take over once its holder stops renewing it.
 */
export function createHealthScheduler(deps: {
  repo: HealthRepository
  checks: HealthChecks
  schedule: HealthSchedule
  holder: string
  now: () => number
  onError: (error: unknown) => void
}) {
  const { repo, schedule } = deps
  const hostIntervalMs = schedule.hostIntervalMs ?? HEALTH_HOST_INTERVAL_MS
  const leaseMs = schedule.leaseMs ?? HEALTH_LEASE_MS
  const busyPauseMs = schedule.busyPauseMs ?? HEALTH_BUSY_PAUSE_MS
  /** When each host may next be asked. */
  const nextAt = new Map<string, number>()
  let stopped = false
  /** Checks done since the start (a sweep's count is the difference). */
  let done = 0
  let running: Promise<SweepResult> = Promise.resolve({ held: false, checked: 0 })
  const stopping = new AbortController()

  /** When `link`'s host may be asked next (0: now). */
  const turnOf = (link: DueLink) => nextAt.get(hostOf(link.destination)) ?? 0

  /**
   * Checks a batch: at most `concurrency` at once, each time the next link whose host's turn has come
   * (one host waiting does not hold up the others); when none has, waits for a check to end or for
   * the earliest turn.
   */
  async function checkBatch(links: readonly DueLink[]): Promise<void> {
    const waiting = [...links]
    const inFlight = new Set<Promise<unknown>>()
    // The first check that fails ends the batch, once the checks in flight are over.
    let failed: { error: unknown } | undefined
    while (!stopped && failed === undefined && (waiting.length > 0 || inFlight.size > 0)) {
      const now = deps.now()
      while (inFlight.size < schedule.concurrency) {
        const index = waiting.findIndex((link) => turnOf(link) <= now)
        if (index < 0) break
        const link = waiting.splice(index, 1)[0] as DueLink
        nextAt.set(hostOf(link.destination), now + hostIntervalMs)
        const task: Promise<unknown> = deps.checks
          .check(link)
          .then(
            () => done++,
            (error: unknown) => {
              failed ??= { error }
            },
          )
          .finally(() => inFlight.delete(task))
        inFlight.add(task)
      }
      const wakeUps: Promise<unknown>[] = [...inFlight]
      if (waiting.length > 0 && inFlight.size < schedule.concurrency) {
        const earliest = Math.min(...waiting.map(turnOf))
        wakeUps.push(sleep(Math.max(0, earliest - now), undefined, { signal: stopping.signal }).catch(() => {}))
      }
      await Promise.race(wakeUps)
    }
    // A stop waits for the checks in flight: their verdicts are written before the connection closes.
    await Promise.allSettled(inFlight)
    if (failed !== undefined) throw failed.error
  }

  async function sweep(): Promise<SweepResult> {
    let held = false
    const before = done
    for (;;) {
      const now = deps.now()
      if (stopped) return { held, checked: done - before }
      try {
        if (!(await repo.takeLease(HEALTH_LEASE, deps.holder, now, now + leaseMs))) return { held: false, checked: done - before }
        held = true
        for (const [host, at] of nextAt) if (at <= now) nextAt.delete(host)
        const due = await repo.due(now, now - schedule.intervalMs, HEALTH_BATCH)
        if (due.length === 0) return { held, checked: done - before }
        await checkBatch(due)
      } catch (error) {
        // The server's own upkeep can hold SQLite's write lock longer than a write waits for it (a start
        // onto click history still to compact): the links not written stay due, and the sweep goes on
        // after a pause instead of ending until the next poll. Any other failure ends it.
        if (!isSqliteBusy(error)) throw error
        await sleep(busyPauseMs, undefined, { signal: stopping.signal }).catch(() => {})
      }
    }
  }

  return {
    /** Sweeps now (after the sweep running, if any); failures go to onError. */
    sweep(): Promise<SweepResult> {
      running = running.then(sweep).catch((error: unknown) => {
        deps.onError(error)
        return { held: false, checked: 0 }
      })
      return running
    },
    /** Stops after the checks in flight (the server gives the lease up: health.thread.ts). */
    async stop(): Promise<void> {
      stopped = true
      stopping.abort()
      await running
    },
  }
}
