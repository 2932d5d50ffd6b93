import { setTimeout as sleep } from 'node:timers/promises'
import type { HealthChecks } from './health.service.js'
import type { DueLink, HealthRepository } from './health.repository.js'

/** Links read per batch: what the checker holds in memory at a time. */
export const HEALTH_BATCH = 20
/** The lease's name in health_leases. */
export const HEALTH_LEASE = 'health-checker'
/** How long a lease holds without renewal: a crashed checker's lease frees itself after this. */
export const HEALTH_LEASE_MS = 60_000
/** How often the checker looks for due links. */
export const HEALTH_POLL_MS = 60_000
/** Between two requests to one host. */
export const HEALTH_HOST_INTERVAL_MS = 1000

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
  readonly pollMs?: number
  readonly hostIntervalMs?: number
  readonly leaseMs?: number
}

/** The host a destination's check is paced by (its first hop; redirects are not paced apart). */
const hostOf = (url: string): string => (URL.canParse(url) ? new URL(url).host : url)

/**
 * The background checker: while it holds the lease, it takes the links due (never checked, or checked
 * `intervalMs` ago) in batches of HEALTH_BATCH, the longest unchecked first, and checks each batch with
 * at most `concurrency` requests at once and one request per host per `hostIntervalMs`; then it sleeps
 * `pollMs`. The lease (a row renewed before every batch) lets one instance at a time check: the others
 * only try to take it at each poll, and take over once its holder stops renewing it.
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
  const pollMs = schedule.pollMs ?? HEALTH_POLL_MS
  const hostIntervalMs = schedule.hostIntervalMs ?? HEALTH_HOST_INTERVAL_MS
  const leaseMs = schedule.leaseMs ?? HEALTH_LEASE_MS
  /** When each host may next be asked. */
  const nextAt = new Map<string, number>()
  let stopped = false
  let running: Promise<SweepResult> = Promise.resolve({ held: false, checked: 0 })
  let timer: NodeJS.Timeout | undefined
  const stopping = new AbortController()

  /** Waits for the host's turn, and books the next one a host interval later. */
  async function pace(host: string): Promise<void> {
    const now = deps.now()
    const at = Math.max(now, nextAt.get(host) ?? 0)
    nextAt.set(host, at + hostIntervalMs)
    if (at > now) await sleep(at - now, undefined, { signal: stopping.signal }).catch(() => {})
  }

  async function checkBatch(links: readonly DueLink[]): Promise<void> {
    let next = 0
    const worker = async () => {
      while (next < links.length && !stopped) {
        const link = links[next++] as DueLink
        await pace(hostOf(link.destination))
        if (stopped) return
        await deps.checks.check(link)
      }
    }
    await Promise.all(Array.from({ length: Math.min(schedule.concurrency, links.length) }, worker))
  }

  async function sweep(): Promise<SweepResult> {
    let checked = 0
    for (;;) {
      const now = deps.now()
      if (stopped || !(await repo.takeLease(HEALTH_LEASE, deps.holder, now, now + leaseMs))) return { held: false, checked }
      for (const [host, at] of nextAt) if (at <= now) nextAt.delete(host)
      const due = await repo.due(now, now - schedule.intervalMs, HEALTH_BATCH)
      if (due.length === 0) return { held: true, checked }
      await checkBatch(due)
      checked += due.length
    }
  }

  /** One sweep after the one running (if any); failures go to onError. */
  const queue = (): Promise<SweepResult> => {
    running = running.then(sweep).catch((error: unknown) => {
      deps.onError(error)
      return { held: false, checked: 0 }
    })
    return running
  }

  function loop(): void {
    if (stopped) return
    void queue().finally(() => {
      if (!stopped) timer = setTimeout(loop, pollMs)
    })
  }

  return {
    /** Sweeps now, then every pollMs. */
    start: loop,
    /** Sweeps now (after the sweep running): what `POST` of a test and the thread's `sweep` message ask. */
    sweep: queue,
    /** Stops after the checks in flight and gives the lease up. */
    async stop(): Promise<void> {
      stopped = true
      stopping.abort()
      if (timer) clearTimeout(timer)
      await running
      await repo.releaseLease(HEALTH_LEASE, deps.holder).catch(deps.onError)
    },
  }
}
