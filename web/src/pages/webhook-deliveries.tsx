import { useEffect, useRef, useState } from 'preact/hooks'
import { call, client, type Webhook, type WebhookDelivery } from '../api'
import { asyncHandler, Empty, ErrorBox, formatDate, Loading } from '../ui'

/** How often the log asks again while a delivery of it is still pending (being sent or retried). */
const PENDING_POLL_MS = 1500
const PAGE = 20

/**
 * The newest first page, followed by the older deliveries already loaded ("Load more"): a refresh
 * updates what may have changed (the newest) without losing the pages read further down.
 */
function merge(fresh: WebhookDelivery[], old: WebhookDelivery[]): WebhookDelivery[] {
  const last = fresh[fresh.length - 1]
  if (last === undefined) return fresh
  const ids = new Set(fresh.map((d) => d.id))
  // Delivery ids are time-ordered: older than the page's last one means further down the log.
  return [...fresh, ...old.filter((d) => !ids.has(d.id) && d.id < last.id)]
}

const STATUS_CLASS = { pending: 'tag warn', delivered: 'tag', failed: 'tag danger' } as const

const HEADINGS = ['Event', 'Status', 'Attempts', 'HTTP', 'Last error', 'Response', 'Times']

/** One delivery of the log; `onReplay` is there for `webhooks:write`. */
function DeliveryRow({ delivery, onReplay }: { delivery: WebhookDelivery; onReplay: ((delivery: WebhookDelivery) => Promise<void>) | null }) {
  return (
    <tr data-delivery={delivery.id} data-status={delivery.status}>
      <td>
        <strong>{delivery.eventType}</strong>
        <span class="muted small-print block-line">
          <code>{delivery.eventId}</code>
        </span>
      </td>
      <td data-label="Status">
        <span class={STATUS_CLASS[delivery.status]}>{delivery.status}</span>
      </td>
      <td class="num" data-label="Attempts">
        {delivery.attempts}
      </td>
      <td data-label="HTTP status">{delivery.lastStatusCode ?? <span class="muted">—</span>}</td>
      <td data-label="Last error" class="wrap-anywhere">
        {delivery.lastError ?? <span class="muted">—</span>}
      </td>
      <td data-label="Response" class="wrap-anywhere">
        {delivery.responseExcerpt ? <code>{delivery.responseExcerpt}</code> : <span class="muted">—</span>}
      </td>
      <td data-label="Times" class="small-print">
        <span>
          <span class="block-line">Queued {formatDate(delivery.createdAt)}</span>
          {delivery.lastAttemptAt ? <span class="block-line">Last attempt {formatDate(delivery.lastAttemptAt)}</span> : null}
          {delivery.deliveredAt ? <span class="block-line">Delivered {formatDate(delivery.deliveredAt)}</span> : null}
          {delivery.status === 'pending' && delivery.nextAttemptAt ? <span class="block-line">Next attempt {formatDate(delivery.nextAttemptAt)}</span> : null}
        </span>
      </td>
      {onReplay ? (
        <td class="row-actions">
          {delivery.status === 'pending' ? null : (
            <button
              type="button"
              class="small"
              onClick={asyncHandler(() => onReplay(delivery))}
              aria-label={`Replay ${delivery.eventType} ${delivery.eventId}`}
            >
              Replay
            </button>
          )}
        </td>
      ) : null}
    </tr>
  )
}

/**
 * One endpoint's delivery log (GET /v1/webhooks/{id}/deliveries, paged by cursor), newest first; it
 * asks again while a delivery is pending, so a test or a replay is seen arriving. `version` changes
 * when the page queued a delivery (a test). Keyed by the endpoint: another one is a new log.
 */
export function DeliveryLog(props: { webhook: Webhook; canWrite: boolean; version: number; onClose: () => void }) {
  const { webhook } = props
  const [rows, setRows] = useState<WebhookDelivery[] | null>(null)
  const [more, setMore] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [tick, setTick] = useState(0)
  const heading = useRef<HTMLHeadingElement>(null)
  const extended = useRef(false)
  useEffect(() => heading.current?.focus(), [])

  const page = (startingAfter?: string) =>
    call(
      client.GET('/v1/webhooks/{id}/deliveries', {
        params: { path: { id: webhook.id }, query: { limit: PAGE, ...(startingAfter ? { starting_after: startingAfter } : {}) } },
      }),
    )
  useEffect(() => {
    let live = true
    page().then(
      (r) => {
        if (!live) return
        setError(null)
        setRows((old) => merge(r.data, old ?? []))
        // Once older pages are loaded, the cursor goes on from the oldest of them.
        if (!extended.current) setMore(r.pagination.hasMore ? r.pagination.nextCursor : null)
      },
      (e) => live && setError(e),
    )
    return () => {
      live = false
    }
  }, [props.version, tick])
  const pending = rows?.some((d) => d.status === 'pending') ?? false
  useEffect(() => {
    if (!pending) return
    const timer = setTimeout(() => setTick((t) => t + 1), PENDING_POLL_MS)
    return () => clearTimeout(timer)
  }, [rows, pending])

  const loadMore = async () => {
    if (more === null) return
    try {
      const r = await page(more)
      extended.current = true
      setRows((old) => [...(old ?? []), ...r.data])
      setMore(r.pagination.hasMore ? r.pagination.nextCursor : null)
    } catch (e) {
      setError(e)
    }
  }
  const replay = async (delivery: WebhookDelivery) => {
    setError(null)
    try {
      await call(client.POST('/v1/webhooks/{id}/deliveries/{delivery_id}/retry', { params: { path: { id: webhook.id, delivery_id: delivery.id } }, body: {} }))
      setTick((t) => t + 1)
    } catch (e) {
      setError(e)
    }
  }
  return (
    <section class="card delivery-log" aria-labelledby="delivery-log-title" data-testid="delivery-log">
      <div class="page-header">
        <div>
          <h2 id="delivery-log-title" ref={heading} tabIndex={-1}>
            Delivery log
          </h2>
          <p class="muted small-print endpoint-url">{webhook.url}</p>
        </div>
        <div class="actions">
          <button type="button" class="small" onClick={() => setTick((t) => t + 1)}>
            Refresh
          </button>
          <button type="button" class="small" onClick={props.onClose} aria-label="Close the delivery log">
            Close
          </button>
        </div>
      </div>
      <ErrorBox error={error} />
      {rows === null && !error ? <Loading what="deliveries" /> : null}
      {rows?.length === 0 ? <Empty>No deliveries yet{props.canWrite ? ': send a test to see one here.' : '.'}</Empty> : null}
      {rows && rows.length > 0 ? (
        <div class="table-wrap">
          <table class="cards deliveries">
            <thead>
              <tr>
                {HEADINGS.map((h) => (
                  <th key={h} class={h === 'Attempts' ? 'num' : undefined}>
                    {h}
                  </th>
                ))}
                {props.canWrite ? <th>Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <DeliveryRow key={d.id} delivery={d} onReplay={props.canWrite ? replay : null} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {more !== null ? (
        <div class="pager">
          <button type="button" onClick={asyncHandler(loadMore)}>
            Load older deliveries
          </button>
        </div>
      ) : null}
    </section>
  )
}
