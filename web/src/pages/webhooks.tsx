import { useEffect, useRef, useState } from 'preact/hooks'
import { call, client, type NewWebhook, type Webhook } from '../api'
import { asyncHandler, confirmed, CopyButton, Empty, ErrorBox, formatDate, Loading } from '../ui'
import { DeliveryLog } from './webhook-deliveries'
import { WebhookForm } from './webhook-form'
import './webhooks.css'

/** The signing secret of an endpoint just made: in the API's answer to POST only, so shown once, here. */
function SigningSecret({ created, onDone }: { created: NewWebhook; onDone: () => void }) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => box.current?.focus(), [])
  return (
    <div class="notice one-time" role="status" tabIndex={-1} ref={box} data-testid="webhook-secret" aria-labelledby="webhook-secret-title">
      <strong id="webhook-secret-title">Signing secret for {created.url}</strong>
      <p class="small-print">
        Copy it now and keep it with your receiver, which checks each delivery's <code>webhook-signature</code> with it.{' '}
        <strong>You will not see it again</strong>: to change it, add a new endpoint and delete this one.
      </p>
      <code class="secret">{created.secret}</code>
      <div class="actions">
        <CopyButton text={created.secret} label="Copy secret" />
        <button type="button" class="small" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  )
}

const HEADINGS = ['Endpoint', 'Events', 'Status', 'Created', 'Actions']

interface RowActions {
  toggleLog: (webhook: Webhook) => void
  sendTest: (webhook: Webhook) => Promise<void>
  edit: (webhook: Webhook) => void
  setEnabled: (webhook: Webhook, enabled: boolean) => Promise<void>
  remove: (webhook: Webhook) => Promise<void>
}

/** One endpoint: a row on a wide screen, a card on a narrow one; its buttons are named with its URL. */
function WebhookRow({ webhook, canWrite, logOpen, actions }: { webhook: Webhook; canWrite: boolean; logOpen: boolean; actions: RowActions }) {
  return (
    <tr data-webhook={webhook.url}>
      <td class="wrap-anywhere">
        <strong>{webhook.url}</strong>
        {webhook.description ? <span class="muted small-print block-line">{webhook.description}</span> : null}
      </td>
      <td data-label="Events" class="small-print">
        <span>{webhook.events.includes('*') ? 'all events' : webhook.events.join(', ')}</span>
      </td>
      <td data-label="Status">
        {webhook.enabled ? (
          <span class="tag">enabled</span>
        ) : (
          <span>
            <span class="tag warn">disabled</span>
            {webhook.disabledReason ? <span class="small-print block-line">{webhook.disabledReason}</span> : null}
          </span>
        )}
      </td>
      <td class="nowrap" data-label="Created">
        {formatDate(webhook.createdAt)}
      </td>
      <td class="row-actions">
        <button type="button" class="small" aria-label={`Deliveries of ${webhook.url}`} aria-expanded={logOpen} onClick={() => actions.toggleLog(webhook)}>
          Deliveries
        </button>
        {canWrite ? (
          <>
            <button type="button" class="small" aria-label={`Send test to ${webhook.url}`} onClick={asyncHandler(() => actions.sendTest(webhook))}>
              Send test
            </button>
            <button type="button" class="small" aria-label={`Edit ${webhook.url}`} onClick={() => actions.edit(webhook)}>
              Edit
            </button>
            <button
              type="button"
              class="small"
              aria-label={`${webhook.enabled ? 'Disable' : 'Enable'} ${webhook.url}`}
              onClick={asyncHandler(() => actions.setEnabled(webhook, !webhook.enabled))}
            >
              {webhook.enabled ? 'Disable' : 'Enable'}
            </button>
            <button type="button" class="small danger" aria-label={`Delete ${webhook.url}`} onClick={asyncHandler(() => actions.remove(webhook))}>
              Delete
            </button>
          </>
        ) : null}
      </td>
    </tr>
  )
}

/**
 * Webhook endpoints (docs/api/webhooks.md): the list for `webhooks:read`; adding, editing, turning
 * on and off, deleting, a test event and replays for `webhooks:write`. The delivery log of one
 * endpoint opens below the list.
 */
export function WebhooksPage({ canWrite }: { canWrite: boolean }) {
  const [webhooks, setWebhooks] = useState<Webhook[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null)
  const [created, setCreated] = useState<NewWebhook | null>(null)
  const [log, setLog] = useState<{ id: string; version: number } | null>(null)
  /** Where focus was when a form or the secret opened: it goes back there when they close. */
  const opener = useRef<HTMLElement | null>(null)
  const newButton = useRef<HTMLButtonElement>(null)
  const load = () => call(client.GET('/v1/webhooks')).then((r) => setWebhooks(r.data), setError)
  useEffect(() => void load(), [])

  const open = (what: Webhook | 'new') => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null
    setCreated(null)
    setEditing(what)
  }
  const refocus = () => {
    const back = opener.current?.isConnected ? opener.current : newButton.current
    setTimeout(() => back?.focus())
  }
  const close = () => {
    setEditing(null)
    refocus()
  }
  const saved = async (webhook: Webhook | NewWebhook) => {
    setEditing(null)
    if ('secret' in webhook) setCreated(webhook)
    else refocus()
    await load()
  }
  const act = async (work: () => Promise<unknown>) => {
    setError(null)
    try {
      await work()
      await load()
    } catch (e) {
      setError(e)
    }
  }
  const path = (w: Webhook) => ({ params: { path: { id: w.id } } })
  const setEnabled = (w: Webhook, enabled: boolean) => act(() => call(client.PATCH('/v1/webhooks/{id}', { ...path(w), body: { enabled } })))
  const remove = async (w: Webhook) => {
    if (!confirmed(`Delete the endpoint ${w.url}? Nothing more is sent to it, and its delivery log goes with it.`)) return
    if (log?.id === w.id) setLog(null)
    await act(() => call(client.DELETE('/v1/webhooks/{id}', path(w))))
    // Its row, and the button that had the focus, are gone: the focus goes back to the page's first action.
    opener.current = null
    refocus()
  }
  const sendTest = (w: Webhook) =>
    act(async () => {
      await call(client.POST('/v1/webhooks/{id}/test', { ...path(w), body: {} }))
      setLog((l) => ({ id: w.id, version: (l?.version ?? 0) + 1 }))
    })
  const rowActions: RowActions = {
    toggleLog: (w) => setLog(log?.id === w.id ? null : { id: w.id, version: 0 }),
    sendTest,
    edit: open,
    setEnabled,
    remove,
  }
  const shown = webhooks?.find((w) => w.id === log?.id) ?? null

  return (
    <section>
      <header class="page-header">
        <h1>Webhooks</h1>
        {canWrite ? (
          <button type="button" class="primary" ref={newButton} onClick={() => open('new')} disabled={editing === 'new'}>
            New endpoint
          </button>
        ) : null}
      </header>
      <p class="muted small-print webhooks-intro">
        Each endpoint gets a signed <code>POST</code> when links, conversations and messages change, retried for about a day.
      </p>
      {editing !== null ? (
        <WebhookForm key={editing === 'new' ? 'new' : editing.id} webhook={editing === 'new' ? null : editing} onSaved={asyncHandler(saved)} onCancel={close} />
      ) : null}
      {created ? (
        <SigningSecret
          created={created}
          onDone={() => {
            setCreated(null)
            refocus()
          }}
        />
      ) : null}
      <ErrorBox error={error} />
      {webhooks === null && !error ? <Loading what="webhook endpoints" /> : null}
      {webhooks?.length === 0 ? <Empty>No webhook endpoints{canWrite ? ': add one to be told when things change.' : '.'}</Empty> : null}
      {webhooks?.length ? (
        <div class="table-wrap">
          <table class="cards webhooks">
            <thead>
              <tr>
                {HEADINGS.map((h) => (
                  <th key={h}>{h}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {webhooks.map((w) => (
                <WebhookRow key={w.id} webhook={w} canWrite={canWrite} logOpen={log?.id === w.id} actions={rowActions} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {shown && log ? <DeliveryLog key={shown.id} webhook={shown} canWrite={canWrite} version={log.version} onClose={() => setLog(null)} /> : null}
    </section>
  )
}
