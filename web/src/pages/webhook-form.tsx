import { useEffect, useRef, useState } from 'preact/hooks'
import { call, client, type NewWebhook, type operations, type Webhook } from '../api'
import { asyncHandler, ErrorBox, Field, fieldError, generalError } from '../ui'

type WebhookBody = operations['postWebhooks']['requestBody']['content']['application/json']
type WebhookEvent = Exclude<WebhookBody['events'][number], '*'>

/**
 * Every event the API accepts (its request type, from sdk/schema.d.ts), with what it means: the
 * checkboxes are built from this record, and an event the API adds fails to compile until it is here.
 */
const EVENT_MEANINGS: Record<WebhookEvent, string> = {
  'link.created': 'a link is created',
  'link.updated': 'a link changes (its title from the page too)',
  'link.deleted': 'a link is deleted',
  'link.clicked': 'a person visits a link',
  'link.broken': "a link's destination turns broken (two failed checks in a row)",
  'conversation.created': 'a conversation starts',
  'conversation.updated': 'a conversation changes',
  'conversation.deleted': 'a conversation is deleted',
  'message.created': 'a message is written',
  'message.deleted': 'a message is deleted',
}
const EVENTS = Object.keys(EVENT_MEANINGS) as WebhookEvent[]
const isEvent = (name: string): name is WebhookEvent => name in EVENT_MEANINGS

/**
 * Adds an endpoint, or edits one (its URL, events and description): focus goes to its first field when
 * it opens, Esc cancels. What the API refuses is said at the field it names (`param`).
 */
export function WebhookForm(props: { webhook: Webhook | null; onSaved: (saved: Webhook | NewWebhook) => void; onCancel: () => void }) {
  const editing = props.webhook
  const [url, setUrl] = useState(editing?.url ?? '')
  const [description, setDescription] = useState(editing?.description ?? '')
  const [all, setAll] = useState(editing?.events.includes('*') ?? false)
  const [events, setEvents] = useState<Set<WebhookEvent>>(new Set(editing?.events.filter(isEvent) ?? []))
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const first = useRef<HTMLInputElement>(null)
  useEffect(() => first.current?.focus(), [])

  const toggle = (event: WebhookEvent) => {
    const next = new Set(events)
    if (next.has(event)) next.delete(event)
    else next.add(event)
    setEvents(next)
  }
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    // Always the whole form: an empty URL or no event is the API's to name, at its field.
    const body: WebhookBody = {
      url: url.trim(),
      events: all ? ['*'] : EVENTS.filter((ev) => events.has(ev)),
      description: description.trim() === '' ? null : description.trim(),
    }
    try {
      const saved = editing
        ? await call(client.PATCH('/v1/webhooks/{id}', { params: { path: { id: editing.id } }, body }))
        : await call(client.POST('/v1/webhooks', { body }))
      props.onSaved(saved.data)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  const closeOnEscape = (e: KeyboardEvent) => {
    if (e.key !== 'Escape') return
    e.preventDefault()
    props.onCancel()
  }
  const eventsError = fieldError(error, 'events')
  const title = editing ? 'Edit endpoint' : 'New endpoint'
  const submitLabel = editing ? 'Save changes' : 'Create endpoint'
  return (
    <form class="card webhook-form" onSubmit={asyncHandler(submit)} onKeyDown={closeOnEscape} noValidate aria-label={title}>
      <h2>{title}</h2>
      <div class="grid">
        <Field label="Endpoint URL" name="url" error={error} hint="Your receiver's https address; it gets a signed POST per event">
          <input
            ref={first}
            name="url"
            type="url"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
            placeholder="https://hooks.example.com/linkline"
          />
        </Field>
        <Field label="Description" name="description" error={error} hint="Optional: what receives it">
          <input name="description" value={description} maxLength={255} onInput={(e) => setDescription(e.currentTarget.value)} placeholder="CRM sync" />
        </Field>
      </div>
      <fieldset class={eventsError ? 'field events invalid' : 'field events'} data-field="events">
        <legend class="label">Events</legend>
        <label class="inline-check">
          <input type="checkbox" name="all-events" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />
          All events, including those added later
        </label>
        <span class="checks">
          {EVENTS.map((ev) => (
            <label key={ev} title={`Sent when ${EVENT_MEANINGS[ev]}`}>
              <input type="checkbox" name="events" value={ev} checked={all || events.has(ev)} disabled={all} onChange={() => toggle(ev)} />
              <code>{ev}</code>
            </label>
          ))}
        </span>
        {eventsError ? (
          <span class="field-error" role="alert">
            {eventsError}
          </span>
        ) : (
          <span class="hint">A test event can be sent whatever is chosen here</span>
        )}
      </fieldset>
      <ErrorBox error={generalError(error, ['url', 'description', 'events'])} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        <button type="button" onClick={props.onCancel} title="Esc">
          Cancel
        </button>
      </div>
    </form>
  )
}
