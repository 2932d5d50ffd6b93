import { useState } from 'preact/hooks'
import { call, client, type Domain, type Link, type operations } from '../api'
import { asyncHandler, ErrorBox, Field, generalError } from '../ui'
import { PREVIEW_PARAMS, PreviewEditor, previewBody, previewText } from './link-preview-editor'

/**
 * The fields of the link form, described once: the form renders them in order, and the request body
 * is built from them. A new link field (docs/api/links.md#link-controls: redirectType, expiresAt, tags, …) is one more
 * entry here, with how it reads from a link and how it goes into a body.
 */
/** The body of a new link: a form field is one of its fields. */
type LinkBody = operations['postLinks']['requestBody']['content']['application/json']
type LinkValues = Partial<Record<keyof LinkBody, unknown>>

export interface LinkField {
  name: keyof LinkBody
  label: string
  input: 'url' | 'text' | 'domain' | 'select' | 'datetime-local' | 'number' | 'list' | 'password'
  placeholder?: string
  hint?: string
  options?: { value: string; label: string }[]
  required?: boolean
  /** The form's text for the field, from a link (edit) or for a new one. */
  read?: (link: Link | null) => string
  /** The body's value for the form's text; `undefined` leaves the field out. */
  write?: (text: string, editing: boolean) => unknown
  /** The hint when editing, if it differs (e.g. a password that is set but never shown). */
  editHint?: (link: Link) => string | undefined
}

const optionalText = (text: string, editing: boolean) => (text.trim() === '' ? (editing ? null : undefined) : text.trim())

export const LINK_FIELDS: LinkField[] = [
  // Always sent, even empty: the API then says what a destination must be, at this field.
  {
    name: 'destination',
    label: 'Destination',
    input: 'url',
    placeholder: 'https://example.com/page',
    required: true,
    hint: 'Where the short link sends people',
    write: (text) => text.trim(),
  },
  { name: 'domain', label: 'Domain', input: 'domain' },
  {
    name: 'path',
    label: 'Path',
    input: 'text',
    placeholder: '/summer-sale',
    hint: 'Leave empty for a random one',
    write: (text) => (text.trim() === '' ? undefined : text.trim().startsWith('/') ? text.trim() : `/${text.trim()}`),
  },
  { name: 'title', label: 'Title', input: 'text', placeholder: 'Summer sale poster', write: optionalText },
  {
    name: 'tags',
    label: 'Tags',
    input: 'list',
    placeholder: 'summer, print',
    hint: 'Comma-separated',
    read: (link) => (link?.tags ?? []).join(', '),
    write: (text, editing) => {
      const tags = text
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '')
      return tags.length === 0 && !editing ? undefined : tags
    },
  },
  {
    name: 'redirectType',
    label: 'Redirect',
    input: 'select',
    options: [
      { value: '302', label: '302 Found (default)' },
      { value: '301', label: '301 Moved permanently' },
      { value: '307', label: '307 Temporary redirect' },
      { value: '308', label: '308 Permanent redirect' },
    ],
    read: (link) => String(link?.redirectType ?? 302),
    write: (text) => Number(text),
  },
  {
    name: 'expiresAt',
    label: 'Expires at',
    input: 'datetime-local',
    hint: 'Your local time; empty: never',
    read: (link) => toLocalInput(link?.expiresAt ?? null),
    write: (text, editing) => {
      if (text.trim() === '') return editing ? null : undefined
      const date = new Date(text)
      // An unreadable value goes as typed: the API then says what it must be, at this field.
      return Number.isNaN(date.getTime()) ? text : date.toISOString()
    },
  },
  {
    name: 'maxClicks',
    label: 'Click limit',
    input: 'number',
    placeholder: 'No limit',
    hint: 'Expires after this many human visits',
    write: (text, editing) => (text.trim() === '' ? (editing ? null : undefined) : Number(text)),
  },
  {
    name: 'expiredUrl',
    label: 'When expired, go to',
    input: 'url',
    placeholder: 'https://example.com/ended',
    hint: 'Empty: the link answers 410 Gone',
    write: optionalText,
  },
  {
    name: 'password',
    label: 'Password',
    input: 'password',
    hint: 'Visitors type it before they are sent on',
    editHint: (link) => (link.hasPassword ? 'A password is set; leave empty to keep it' : undefined),
    // Write-only: the form never has the password, so empty means unchanged.
    read: () => '',
    write: (text) => (text === '' ? undefined : text),
  },
]

/** An ISO date-time as a datetime-local input's value, in the browser's time zone. */
function toLocalInput(iso: string | null): string {
  if (iso === null) return ''
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

const readField = (field: LinkField, link: Link | null) => {
  if (field.read) return field.read(link)
  // A link's field holds what the body's field of the same name sets.
  const fields: LinkValues | null = link
  const value = fields?.[field.name]
  return value === null || value === undefined ? '' : String(value)
}

export function LinkForm(props: { link: Link | null; domains: Domain[]; onSaved: (link: Link) => void; onCancel: () => void }) {
  const editing = props.link !== null
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(LINK_FIELDS.map((f) => [f.name, readField(f, props.link)])))
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [removePassword, setRemovePassword] = useState(false)
  const [preview, setPreview] = useState(() => previewText(props.link))
  const hasPassword = props.link?.hasPassword === true

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    const body: LinkValues = {}
    for (const field of LINK_FIELDS) {
      const text = values[field.name] ?? ''
      // On edit, only what changed is sent (PUT is a partial update).
      if (editing && text === readField(field, props.link)) continue
      const value = field.write ? field.write(text, editing) : text.trim() === '' ? undefined : text.trim()
      if (value !== undefined) body[field.name] = value
    }
    if (removePassword && hasPassword) body.password = null
    const previewValue = previewBody(preview, props.link)
    if (previewValue !== undefined) body.preview = previewValue
    try {
      // Each field's `write` gives its value the body's type; what a person typed wrong, the API names.
      const saved = editing
        ? await call(client.PATCH('/v1/links/{id}', { params: { path: { id: props.link!.id } }, body: body as Partial<LinkBody> }))
        : await call(client.POST('/v1/links', { body: body as LinkBody }))
      props.onSaved(saved.data)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  const set = (name: string) => (event: Event) => setValues({ ...values, [name]: (event.currentTarget as HTMLInputElement).value })
  const usable = props.domains.filter((d) => d.status === 'verified')

  return (
    <form class="card link-form" onSubmit={asyncHandler(submit)} noValidate>
      <h2>{editing ? 'Edit link' : 'New link'}</h2>
      <div class="grid">
        {LINK_FIELDS.map((field) => (
          <Field key={field.name} label={field.label} name={field.name} error={error} hint={(props.link && field.editHint?.(props.link)) ?? field.hint}>
            {field.input === 'domain' || field.input === 'select' ? (
              <select name={field.name} value={values[field.name]} onChange={set(field.name)}>
                {field.input === 'domain'
                  ? [
                      <option key="" value="">
                        {usable[0] ? `${usable[0].name} (default)` : 'default'}
                      </option>,
                      ...usable.map((d) => (
                        <option key={d.name} value={d.name}>
                          {d.name}
                        </option>
                      )),
                    ]
                  : field.options?.map((o) => (
                      <option key={o.value} value={o.value}>
                        {o.label}
                      </option>
                    ))}
              </select>
            ) : (
              <input
                name={field.name}
                type={(field.input === 'list' ? 'text' : field.input) as 'text'}
                value={values[field.name]}
                placeholder={field.placeholder}
                required={field.required}
                onInput={set(field.name)}
                min={field.input === 'number' ? 1 : undefined}
                autoComplete={field.input === 'password' ? 'new-password' : undefined}
                disabled={field.name === 'password' && removePassword}
              />
            )}
          </Field>
        ))}
      </div>
      {hasPassword ? (
        <label class="inline-check">
          <input type="checkbox" checked={removePassword} onChange={(e) => setRemovePassword(e.currentTarget.checked)} />
          Remove the password (anyone with the link is sent on)
        </label>
      ) : null}
      <PreviewEditor
        text={preview}
        onChange={setPreview}
        error={error}
        initiallyOpen={props.link?.preview != null}
        linkTitle={values.title ?? ''}
        domain={values.domain || usable[0]?.name || props.link?.domain || ''}
      />
      <ErrorBox error={generalError(error, [...LINK_FIELDS.map((f) => f.name), ...PREVIEW_PARAMS.slice(1)])} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : editing ? 'Save changes' : 'Create link'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}
