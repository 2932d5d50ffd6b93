import type { FastifyBaseLogger } from 'fastify'
import { OUTBOUND_TIMEOUT_MS, type OutboundFetch } from '../outbound/outbound.js'
import { isHtml, pageTitle } from './page-title.js'

/** Pages fetched at once, per instance. */
export const TITLE_CONCURRENCY = 4
/** Links that may wait for a fetch, per instance (a whole bulk create fits); beyond, they keep no title. */
export const TITLE_QUEUE = 1000

export interface TitleJob {
  readonly id: string
  readonly destination: string
}

/**
 * The title of the page at `url`: a 2xx `text/html` answer's og:title, twitter:title or <title>
 * (page-title.ts), read from at most the guarded client's 1 MiB; undefined for anything else.
 * Rejects with the client's OutboundError when the page could not be fetched.
 */
export async function fetchPageTitle(outbound: OutboundFetch, url: string, timeoutMs = OUTBOUND_TIMEOUT_MS): Promise<string | undefined> {
  const answer = await outbound({ url, headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1' }, timeoutMs })
  const contentType = answer.headers['content-type']
  if (answer.status < 200 || answer.status > 299 || !isHtml(contentType)) return undefined
  return pageTitle(answer.body, contentType)
}

/**
 * Fetches the titles of links created without one, in the background: at most `concurrency` pages at
 * once and `queueLimit` links waiting; a link beyond that is dropped (a debug log line) and keeps no
 * title, as when its page has none. Nothing is retried; a failure is a debug log line. Per instance,
 * in memory: a restart forgets the links still waiting.
 */
export function createTitleFetcher(deps: {
  outbound: OutboundFetch
  /** Writes the title unless the link has one by now (links.service.ts fillPageTitle). */
  fill: (id: string, title: string) => Promise<unknown>
  logger: FastifyBaseLogger
  concurrency?: number
  queueLimit?: number
  /** The whole fetch, by default the guarded client's 10 s; tests shorten it. */
  timeoutMs?: number
}) {
  const concurrency = deps.concurrency ?? TITLE_CONCURRENCY
  const queueLimit = deps.queueLimit ?? TITLE_QUEUE
  const waiting: TitleJob[] = []
  let running = 0
  let closed = false
  let idle: { promise: Promise<void>; resolve: () => void } | undefined

  async function run(job: TitleJob): Promise<void> {
    try {
      const title = await fetchPageTitle(deps.outbound, job.destination, deps.timeoutMs)
      if (title === undefined) deps.logger.debug({ link: job.id }, 'the destination page gave no title')
      else if (!closed) await deps.fill(job.id, title)
    } catch (error) {
      deps.logger.debug({ err: error, link: job.id }, 'the destination page title could not be fetched')
    }
  }

  function pump(): void {
    while (running < concurrency && waiting.length > 0) {
      const job = waiting.shift() as TitleJob
      running++
      void run(job).finally(() => {
        running--
        pump()
      })
    }
    if (running === 0 && waiting.length === 0 && idle) {
      idle.resolve()
      idle = undefined
    }
  }

  return {
    /** Queues a link's title fetch; returns at once. */
    enqueue(job: TitleJob): void {
      if (closed) return
      if (waiting.length >= queueLimit) {
        deps.logger.debug({ link: job.id, waiting: waiting.length }, 'too many page titles waiting: this link keeps no title')
        return
      }
      waiting.push(job)
      pump()
    },

    /** Resolves once nothing runs or waits (tests). */
    idle(): Promise<void> {
      if (running === 0 && waiting.length === 0) return Promise.resolve()
      if (!idle) {
        let resolve!: () => void
        const promise = new Promise<void>((r) => (resolve = r))
        idle = { promise, resolve }
      }
      return idle.promise
    },

    /** Drops the waiting links; fetches under way end within their timeout and write nothing. */
    close(): void {
      closed = true
      waiting.length = 0
    },
  }
}
export type TitleFetcher = ReturnType<typeof createTitleFetcher>
