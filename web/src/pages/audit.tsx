import { useEffect, useState } from 'preact/hooks'
import { call, client, type AuditEntry } from '../api'
import { asyncHandler, Empty, ErrorBox, Loading, formatDate } from '../ui'
import './audit.css'

const PAGE_SIZE = 50

/** Who did what, newest first (GET /v1/audit-log), a page at a time: "Load more" follows the cursor. */
export function AuditPage() {
  const [entries, setEntries] = useState<AuditEntry[] | null>(null)
  const [cursor, setCursor] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  const fetchPage = async (after: string | null) => {
    setBusy(true)
    setError(null)
    try {
      const res = await call(client.GET('/v1/audit-log', { params: { query: { limit: PAGE_SIZE, ...(after === null ? {} : { starting_after: after }) } } }))
      setEntries((before) => (after === null ? res.data : [...(before ?? []), ...res.data]))
      setCursor(res.pagination.nextCursor)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => void fetchPage(null), [])

  return (
    <section>
      <header class="page-header">
        <h1>Audit log</h1>
        <button type="button" onClick={asyncHandler(() => fetchPage(null))} disabled={busy}>
          Refresh
        </button>
      </header>
      <p class="muted">Every change made through the API, every sign-in and every change of roles, kept for 90 days.</p>
      {entries === null && !error ? <Loading what="the audit log" /> : null}
      {entries?.length === 0 ? <Empty>Nothing recorded yet.</Empty> : null}
      {entries && entries.length > 0 ? (
        <table class="cards" data-testid="audit-log">
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>Action</th>
              <th>Resource</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id} data-audit={e.action}>
                <td data-label="When" class="nowrap">
                  <time dateTime={e.at}>{formatDate(e.at)}</time>
                </td>
                <td data-label="Who" class="wrap-anywhere">
                  {e.actor.label} <span class="tag">{e.actor.type}</span>
                </td>
                <td data-label="Action">
                  <code>{e.action}</code>
                </td>
                <td data-label="Resource">
                  <span class="audit-resource">
                    <span class="resource-type">{e.resourceType}</span>
                    {e.resourceId ? <code class="muted"> {e.resourceId}</code> : null}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <ErrorBox error={error} />
      {cursor !== null ? (
        <div class="pager">
          <button type="button" onClick={asyncHandler(() => fetchPage(cursor))} disabled={busy}>
            {busy ? 'Loading…' : 'Load more'}
          </button>
        </div>
      ) : null}
    </section>
  )
}
