import { useEffect, useState } from 'preact/hooks'
import { call, client, describeError, type Link } from '../api'
import { asyncHandler, confirmed } from '../ui'

/** The selected links by id, in the order they were picked: a whole filter's worth may span many pages. */
export type Selection = Map<string, Link>

/** The most ids one POST /v1/links/bulk-delete takes (docs/api/links.md#bulk). */
const DELETE_CHUNK = 1000
/** Tag updates in flight at once: quick for a few hundred links, far below the per-token rate limit. */
const PARALLEL = 4

/**
 * The list's filters as the API's query parameters (`q`, `query[tag]`, `query[domain]`, `query[health]`),
 * from the page's URL: the list, "select all matching" and the export all ask with these.
 */
export function filterParams(query: URLSearchParams): URLSearchParams {
  const params = new URLSearchParams()
  const q = query.get('q')?.trim()
  if (q) params.set('q', q)
  for (const tag of query.getAll('tag')) params.append('query[tag]', tag)
  for (const key of ['domain', 'health']) {
    const value = query.get(key)
    if (value) params.set(`query[${key}]`, value)
  }
  return params
}

/** Every link the filters select, paged through 100 at a time (the list tells no total). */
async function everyMatching(filters: URLSearchParams, isLive: () => boolean): Promise<Link[]> {
  const links: Link[] = []
  for (let page = 1; isLive(); page++) {
    const params = new URLSearchParams(filters)
    params.set('limit', '100')
    params.set('page', String(page))
    const answer = await call(client.GET('/v1/links', { querySerializer: () => params.toString() }))
    links.push(...answer.data)
    if (!answer.pagination.hasMore) break
  }
  return links
}

/** Runs `work` on each item, at most `parallel` at a time, telling `onDone` how many are finished. */
async function eachAtMost<T>(items: T[], parallel: number, work: (item: T) => Promise<void>, onDone: (done: number) => void) {
  let next = 0
  let done = 0
  const worker = async () => {
    while (next < items.length) {
      await work(items[next++]!)
      onDone(++done)
    }
  }
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker))
}

const plural = (n: number) => `${n} link${n === 1 ? '' : 's'}`

interface Failure {
  link: Link
  reason: string
}

/**
 * What to do with the selected links: extend the selection to every link the filter matches, add or
 * remove a tag on each, export the filter as CSV, delete them. Progress and outcome are read out
 * (aria-live); failures are listed per link at the end, the rest of the work done.
 */
export function BulkBar(props: {
  query: URLSearchParams
  rows: Link[]
  /** The filter's links span more than this page. */
  paged: boolean
  selected: Selection
  setSelected: (selection: Selection) => void
  canWrite: boolean
  /** Bumped whenever the list loads again: the matching links may have changed. */
  version: number
  onChanged: () => void
}) {
  const { selected, setSelected } = props
  const filters = filterParams(props.query).toString()
  const [matching, setMatching] = useState<Link[] | null>(null)
  const [tag, setTag] = useState('')
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null)
  const [status, setStatus] = useState('')
  const [failures, setFailures] = useState<Failure[]>([])
  const pageSelected = props.rows.length > 0 && props.rows.every((l) => selected.has(l.id))
  const wantsMatching = pageSelected && props.paged

  // Counted only once a whole page is selected: the offer to take the rest names how many there are.
  useEffect(() => {
    setMatching(null)
    if (!wantsMatching) return
    let live = true
    everyMatching(new URLSearchParams(filters), () => live).then(
      (links) => live && setMatching(links),
      (e) => live && setStatus(`The matching links could not be counted. ${describeError(e)}`),
    )
    return () => {
      live = false
    }
  }, [wantsMatching, filters, props.version])

  const allMatching = matching !== null && matching.length === selected.size && matching.every((l) => selected.has(l.id))
  const busy = progress !== null
  const begin = (total: number, what: string) => {
    setFailures([])
    setProgress({ done: 0, total })
    setStatus(`${what}: 0 of ${total}`)
  }
  const step = (done: number, total: number, what: string) => {
    setProgress({ done, total })
    setStatus(`${what}: ${done} of ${total}`)
  }

  const retag = async (adding: boolean) => {
    const name = tag.trim()
    if (name === '') return setStatus('Type the tag first.')
    const targets = [...selected.values()].filter((l) => (l.tags ?? []).includes(name) !== adding)
    const what = adding ? `Adding “${name}”` : `Removing “${name}”`
    const next = new Map(selected)
    const failed: Failure[] = []
    begin(targets.length, what)
    await eachAtMost(
      targets,
      PARALLEL,
      async (link) => {
        const tags = adding ? [...(link.tags ?? []), name] : (link.tags ?? []).filter((t) => t !== name)
        try {
          next.set(link.id, (await call(client.PATCH('/v1/links/{id}', { params: { path: { id: link.id } }, body: { tags } }))).data)
        } catch (e) {
          failed.push({ link, reason: describeError(e) })
        }
      },
      (done) => step(done, targets.length, what),
    )
    setProgress(null)
    setSelected(next)
    setFailures(failed)
    const changed = targets.length - failed.length
    const unchanged = selected.size - targets.length
    setStatus(
      `${adding ? `Added “${name}” to` : `Removed “${name}” from`} ${plural(changed)}` +
        (unchanged > 0 ? ` (${unchanged} ${adding ? 'had it already' : 'did not have it'})` : '') +
        (failed.length > 0 ? `; ${failed.length} failed:` : '.'),
    )
    props.onChanged()
  }

  const remove = async () => {
    const ids = [...selected.keys()]
    if (!confirmed(`Delete ${plural(ids.length)}? Their statistics and conversations go with them, and their short URLs stop working at once.`)) return
    begin(ids.length, 'Deleting')
    let done = 0
    try {
      for (; done < ids.length; done += DELETE_CHUNK) {
        // An id that is already gone comes back `deleted: false`: gone either way.
        await call(client.POST('/v1/links/bulk-delete', { body: { ids: ids.slice(done, done + DELETE_CHUNK) } }))
        step(Math.min(done + DELETE_CHUNK, ids.length), ids.length, 'Deleting')
      }
      setStatus(`Deleted ${plural(ids.length)}.`)
      setSelected(new Map())
    } catch (e) {
      setStatus(`Deleted ${done} of ${ids.length}, then: ${describeError(e)}`)
      setSelected(new Map(ids.slice(done).map((id) => [id, selected.get(id)!])))
    }
    setProgress(null)
    props.onChanged()
  }

  // The export takes the filters, not a list of ids: offered when the selection is the whole filter.
  const exportable = allMatching || (pageSelected && !props.paged)
  const exportParams = new URLSearchParams(filters)
  exportParams.set('format', 'csv')
  const statusLine = (
    <p role="status" aria-live="polite" class="bulk-status">
      {status}
    </p>
  )
  // The live region stays in the page, so that what is put in it is read out.
  if (selected.size === 0 && status === '') return statusLine
  return (
    <section class="bulk-bar" aria-label="Selected links">
      <div class="bulk-line">
        <strong>{allMatching ? `All ${plural(selected.size)} matching this filter selected` : `${selected.size} selected`}</strong>
        {wantsMatching && matching === null ? <span class="muted">Counting the links that match…</span> : null}
        {matching !== null && pageSelected ? (
          <button type="button" class="link" disabled={busy} onClick={() => setSelected(allMatching ? new Map() : new Map(matching.map((l) => [l.id, l])))}>
            {allMatching ? 'Clear selection' : `Select all ${plural(matching.length)} matching this filter`}
          </button>
        ) : null}
      </div>
      <div class="bulk-actions">
        {props.canWrite && selected.size > 0 ? (
          <form
            class="bulk-tag"
            onSubmit={(e) => {
              e.preventDefault()
              asyncHandler(retag)(true)
            }}
          >
            <input
              type="text"
              aria-label="Tag for the selected links"
              placeholder="Tag"
              maxLength={50}
              value={tag}
              onInput={(e) => setTag(e.currentTarget.value)}
            />
            <button type="submit" disabled={busy}>
              Add tag
            </button>
            <button type="button" disabled={busy} onClick={asyncHandler(() => retag(false))}>
              Remove tag
            </button>
          </form>
        ) : null}
        {exportable && exportParams.has('q') ? (
          <span class="muted">The export follows the tag, domain and health filters, not the search text.</span>
        ) : exportable ? (
          <a class="button" href={`/v1/links/export?${exportParams.toString()}`} download>
            Export {plural(selected.size)} as CSV
          </a>
        ) : null}
        {props.canWrite && selected.size > 0 ? (
          <button type="button" class="danger" disabled={busy} onClick={asyncHandler(remove)}>
            Delete {selected.size} selected
          </button>
        ) : null}
      </div>
      {progress !== null ? <progress max={Math.max(progress.total, 1)} value={progress.done} aria-label="Progress" /> : null}
      {statusLine}
      {failures.length > 0 ? (
        <ul class="bulk-failures">
          {failures.map((f) => (
            <li key={f.link.id}>
              <strong>{f.link.shortUrl.replace(/^https?:\/\//, '')}</strong>: {f.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  )
}
