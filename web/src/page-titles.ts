import { useEffect } from 'preact/hooks'
import type { Link } from './api'

/**
 * A link created without a title gets its page's title a moment later, in the server's background
 * (docs/api/link-care.md#title-from-the-page). The pages that show such a link ask for it again now
 * and then, so that the title appears without a reload: every POLL_MS, for TITLE_WAIT_MS after this
 * tab created it, while its titleSource is still null. Only links this tab created are watched (its
 * own clock: no trust in the server's `createdAt` against the browser's time), and nothing is polled
 * otherwise.
 */
export const POLL_MS = 1500
export const TITLE_WAIT_MS = 12_000

/** Links this tab just created without a title: id → when to stop waiting (Date.now()). */
const waiting = new Map<string, number>()

/** Called with every link this tab creates. */
export function noteCreated(link: Link): void {
  if (link.titleSource === null && link.title === null) waiting.set(link.id, Date.now() + TITLE_WAIT_MS)
}

/** Whether this link may still get its page title, so that it is worth asking for it again. */
export function awaitsTitle(link: Link): boolean {
  const until = waiting.get(link.id)
  if (until === undefined) return false
  if (link.titleSource !== null || link.title !== null || Date.now() > until) {
    waiting.delete(link.id)
    return false
  }
  return true
}

/**
 * Calls `refresh` once POLL_MS from now while any of `links` awaits its title; the refresh brings new
 * links, which arm it again until none waits (or TITLE_WAIT_MS has passed).
 */
export function useTitlePoll(links: Link | readonly Link[] | null | undefined, refresh: () => void): void {
  const pending = (links === null || links === undefined ? [] : 'id' in links ? [links] : links).some(awaitsTitle)
  useEffect(() => {
    if (!pending) return
    const timer = setTimeout(refresh, POLL_MS)
    return () => clearTimeout(timer)
  }, [links, pending])
}
