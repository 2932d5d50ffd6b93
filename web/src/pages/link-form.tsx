import { useState } from 'preact/hooks'
import { api, type Domain, type Envelope, type Link } from '../api'
import { ErrorBox, Field, generalError } from '../ui'

/**
 * The fields of the link form, described once: the form renders them in order, and the request body
 * is built from them. A new link field (API.md §9: redirectType, expiresAt, tags, …) is one more
 * entry here, with how it reads from a link and how it goes into a body.
 */
export interface LinkField {
  name: string
  label: string
  input: 'url' | 'text' | 'domain' | 'select' | 'datetime-local' | 'number' | 'list'
  placeholder?: string
  hint?: string
  options?: { value: string; label: string }[]
  required?: boolean
  /** The form's text for the field, from a link (edit) or for a new one. */
  read?: (link: Link | null) => string
  /** The body's value for the form's text; `undefined` leaves the field out. */
  write?: (text: string, editing: boolean) => unknown
}

const optionalText = (text: string, editing: boolean) => (text.trim() === '' ? (editing ? null : undefined) : text.trim())

export const LINK_FIELDS: LinkField[] = [
  // Always sent, even empty: the API then says what a destination must be, at this field.
  { name: 'destination', label: 'Destination', input: 'url', placeholder: 'https://example.com/page', required: true, hint: 'Where the short link sends people', write: (text) => text.trim() },
  { name: 'domain', label: 'Domain', input: 'domain' },
  {
    name: 'path', label: 'Path', input: 'text', placeholder: '/summer-sale', hint: 'Leave empty for a random one',
    write: (text) => (text.trim() === '' ? undefined : text.trim().startsWith('/') ? text.trim() : `/${text.trim()}`),
  },
  { name: 'title', label: 'Title', input: 'text', placeholder: 'Summer sale poster', write: optionalText },
]

const readField = (field: LinkField, link: Link | null) => {
  if (field.read) return field.read(link)
  const value = link?.[field.name]
  return value === null || value === undefined ? '' : String(value)
}

export function LinkForm(props: { link: Link | null; domains: Domain[]; onSaved: (link: Link) => void; onCancel: () => void }) {
  const editing = props.link !== null
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(LINK_FIELDS.map((f) => [f.name, readField(f, props.link)])))
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    const body: Record<string, unknown> = {}
    for (const field of LINK_FIELDS) {
      const text = values[field.name] ?? ''
      // On edit, only what changed is sent (PUT is a partial update).
      if (editing && text === readField(field, props.link)) continue
      const value = field.write ? field.write(text, editing) : text.trim() === '' ? undefined : text.trim()
      if (value !== undefined) body[field.name] = value
    }
    try {
      const saved = editing
        ? await api<Envelope<Link>>('PATCH', `/v1/links/${props.link!.id}`, { body })
        : await api<Envelope<Link>>('POST', '/v1/links', { body })
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
    <form class="card link-form" onSubmit={submit} noValidate>
      <h2>{editing ? 'Edit link' : 'New link'}</h2>
      <div class="grid">
        {LINK_FIELDS.map((field) => (
          <Field key={field.name} label={field.label} name={field.name} error={error} hint={field.hint}>
            {field.input === 'domain' || field.input === 'select' ? (
              <select name={field.name} value={values[field.name]} onChange={set(field.name)}>
                {field.input === 'domain'
                  ? [<option key="" value="">{usable[0] ? `${usable[0].name} (default)` : 'default'}</option>, ...usable.map((d) => <option key={d.name} value={d.name}>{d.name}</option>)]
                  : field.options?.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
              </select>
            ) : (
              <input name={field.name} type={(field.input === 'list' ? 'text' : field.input) as 'text'} value={values[field.name]} placeholder={field.placeholder}
                required={field.required} onInput={set(field.name)} />
            )}
          </Field>
        ))}
      </div>
      <ErrorBox error={generalError(error, LINK_FIELDS.map((f) => f.name))} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Saving…' : editing ? 'Save changes' : 'Create link'}</button>
        <button type="button" onClick={props.onCancel}>Cancel</button>
      </div>
    </form>
  )
}
