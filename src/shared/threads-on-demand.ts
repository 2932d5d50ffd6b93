import Tinypool from 'tinypool'

/** How long a thread without work lives on, by default: a burst reuses it, a quiet server has none. */
export const IDLE_THREAD_MS = 60_000

/**
 * Worker threads that exist only while there is work (`filename` exports the task as its default):
 * none at the start, one started at the first task, each ended `idleMs` after its last. An idle
 * thread's isolate holds tens of MB (docs/performance.md, "Memory and sizing"), which a server that
 * rarely needs it should not keep.
 */
export function threadsOnDemand(
  filename: URL,
  options: { threads?: number; idleMs?: number; queue?: number; resourceLimits?: Tinypool['options']['resourceLimits'] } = {},
): Tinypool {
  return new Tinypool({
    filename: filename.href,
    minThreads: 0,
    maxThreads: options.threads ?? 1,
    maxQueue: options.queue,
    idleTimeout: options.idleMs ?? IDLE_THREAD_MS,
    resourceLimits: options.resourceLimits,
  })
}
