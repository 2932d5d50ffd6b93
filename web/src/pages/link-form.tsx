import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, call, client, type Domain, type Link, type operations } from '../api'
import { asyncHandler, ErrorBox, Field, generalError } from '../ui'
import { PREVIEW_PARAMS, PreviewEditor, previewBody, previewText } from './link-preview-editor'
import { ruleDrafts, ruleProblems, RulesEditor, rulesBody } from './link-rules'
import { checkUrl, withScheme } from './link-urls'
import { UtmBuilder } from './utm-builder'
import './link-editor.css'

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
  /** What is wrong with the form's text, found before anything is sent, so that every such field says so at once. */
  check?: (text: string) => string | undefined
  /** Folded under "More options" unless set. */
  advanced?: boolean
}

/** The API's path rule (links.schemas.ts, PATH_PATTERN), after the form's leading slash. */
const PATH = /^\/[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/
const withSlash = (text: string) => (text.trim() === '' ? '' : text.trim().startsWith('/') ? text.trim() : `/${text.trim()}`)

const optionalText = (text: string, editing: boolean) => (text.trim() === '' ? (editing ? null : undefined) : text.trim())

export const LINK_FIELDS: LinkField[] = [
  // Always sent, even empty: the API then says what a destination must be, at this field.
  {
    name: 'destination',
    label: 'Destination',
    input: 'url',
    placeholder: 'https://example.com/page',
    required: true,
    hint: 'Where the short link sends people; https:// is added when you leave it out',
    write: withScheme,
    check: (text) => (text.trim() === '' ? 'destination is required' : checkUrl('destination')(text)),
  },
  { name: 'domain', label: 'Domain', input: 'domain' },
  {
    name: 'path',
    label: 'Path',
    input: 'text',
    placeholder: '/summer-sale',
    hint: 'Leave empty for a random one',
    write: (text) => (text.trim() === '' ? undefined : withSlash(text)),
    check: (text) =>
      text.trim() === '' || PATH.test(withSlash(text))
        ? undefined
        : 'path may hold 1-128 characters of A-Z a-z 0-9 - _ . ~ in segments separated by single slashes, with no trailing slash',
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
    advanced: true,
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
    advanced: true,
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
    advanced: true,
    input: 'number',
    placeholder: 'No limit',
    hint: 'Expires after this many human visits',
    write: (text, editing) => (text.trim() === '' ? (editing ? null : undefined) : Number(text)),
  },
  {
    name: 'expiredUrl',
    label: 'When expired, go to',
    advanced: true,
    input: 'url',
    placeholder: 'https://example.com/ended',
    hint: 'Empty: the link answers 410 Gone',
    write: (text, editing) => optionalText(withScheme(text), editing),
    check: checkUrl('expiredUrl'),
  },
  {
    name: 'password',
    label: 'Password',
    advanced: true,
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

/** A field of the form and its control. */
function LinkInput(props: { field: LinkField; value: string; onInput: (e: Event) => void; usable: Domain[]; disabled: boolean }) {
  const { field } = props
  if (field.input === 'domain')
    return (
      // Empty (a new link): the first domain, the API's default, which is then left out of the body.
      <select name={field.name} value={props.value || props.usable[0]?.name || ''} onChange={props.onInput}>
        {props.usable.length === 0 ? <option value="">default</option> : null}
        {props.usable.map((d, i) => (
          <option key={d.name} value={d.name}>
            {i === 0 ? `${d.name} (default)` : d.name}
          </option>
        ))}
      </select>
    )
  if (field.input === 'select')
    return (
      <select name={field.name} value={props.value} onChange={props.onInput}>
        {field.options?.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    )
  return (
    <input
      name={field.name}
      type={(field.input === 'list' ? 'text' : field.input === 'url' ? 'text' : field.input) as 'text'}
      inputMode={field.input === 'url' ? 'url' : undefined}
      value={props.value}
      placeholder={field.placeholder}
      required={field.required}
      onInput={props.onInput}
      min={field.input === 'number' ? 1 : undefined}
      autoComplete={field.input === 'password' ? 'new-password' : field.input === 'url' ? 'url' : undefined}
      disabled={props.disabled}
    />
  )
}

/** Whether a link holds something other than the default in one of the folded fields (the UTM fields, its rules…). */
const usesMore = (link: Link | null) =>
  link !== null &&
  (link.hasPassword ||
    (link.rules ?? []).length > 0 ||
    /[?&]utm_/.test(link.destination) ||
    LINK_FIELDS.some((f) => f.advanced && readField(f, link) !== readField(f, null)))

/** The folded section holds these fields' errors: an error at one of them unfolds it. */
const isAdvanced = (name: string) => name.startsWith('rules') || LINK_FIELDS.some((f) => f.advanced && f.name === name)

/**
 * The link form: a new link, a link to edit (`link`: only what changed is sent), or a new link that
 * starts as a copy of `template` (Duplicate: everything but its path, and its password, never shown).
 */
export function LinkForm(props: { link: Link | null; template?: Link; domains: Domain[]; onSaved: (link: Link) => void; onCancel: () => void }) {
  const editing = props.link !== null
  const start = props.link ?? (props.template ? { ...props.template, path: '', hasPassword: false } : null)
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(LINK_FIELDS.map((f) => [f.name, readField(f, start)])))
  const [error, setError] = useState<unknown>(null)
  const [problems, setProblems] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const [removePassword, setRemovePassword] = useState(false)
  const [preview, setPreview] = useState(() => previewText(start))
  const [rules, setRules] = useState(() => ruleDrafts(start))
  const [more, setMore] = useState(() => usesMore(start))
  const form = useRef<HTMLFormElement>(null)
  const hasPassword = props.link?.hasPassword === true
  // The form opens where the work is: its first field.
  useEffect(() => form.current?.querySelector<HTMLInputElement>('input[name="destination"]')?.focus(), [])
  /** Unfolds the folded section when it holds a field at fault, then focuses the first of `names` in the form, once drawn. */
  const focusFirst = (names: string[]) => {
    if (names.some(isAdvanced)) setMore(true)
    setTimeout(() => form.current?.querySelector<HTMLElement>(names.map((n) => `[name="${n}"]`).join(', '))?.focus())
  }

  const submit = async (event: Event) => {
    event.preventDefault()
    // What can be told before sending is told for every field at once; the API names the rest.
    const found = {
      ...Object.fromEntries(LINK_FIELDS.flatMap((f) => [[f.name, f.check?.(values[f.name] ?? '')] as const]).filter(([, m]) => m !== undefined)),
      ...ruleProblems(rules),
    } as Record<string, string>
    setProblems(found)
    setError(null)
    if (Object.keys(found).length > 0) {
      focusFirst(Object.keys(found))
      return
    }
    setBusy(true)
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
    const rulesValue = rulesBody(rules, props.link)
    if (rulesValue !== undefined) body.rules = rulesValue
    try {
      // Each field's `write` gives its value the body's type; what a person typed wrong, the API names.
      const saved = editing
        ? await call(client.PATCH('/v1/links/{id}', { params: { path: { id: props.link!.id } }, body: body as Partial<LinkBody> }))
        : await call(client.POST('/v1/links', { body: body as LinkBody }))
      props.onSaved(saved.data)
    } catch (e) {
      setError(e)
      // The field the API named, or the nearest one holding it (`rules[0][when][country][0]` is typed in `rules[0][when][country]`).
      const param = e instanceof ApiError ? e.param : null
      if (param !== null) focusFirst(param.split('[').map((_, i, parts) => parts.slice(0, parts.length - i).join('[')))
    } finally {
      setBusy(false)
    }
  }

  const set = (name: string) => (event: Event) => setValues({ ...values, [name]: (event.currentTarget as HTMLInputElement).value })
  const usable = props.domains.filter((d) => d.status === 'verified')
  const fieldOf = (field: LinkField) => (
    <Field
      key={field.name}
      label={field.label}
      name={field.name}
      error={error}
      problem={problems[field.name]}
      hint={(props.link && field.editHint?.(props.link)) ?? field.hint}
    >
      <LinkInput
        field={field}
        value={values[field.name] ?? ''}
        onInput={set(field.name)}
        usable={usable}
        disabled={field.name === 'password' && removePassword}
      />
    </Field>
  )

  return (
    <form
      ref={form}
      class="card link-form"
      onSubmit={asyncHandler(submit)}
      onKeyDown={(e) => {
        if (e.key === 'Escape') props.onCancel()
      }}
      noValidate
    >
      <h2>{editing ? 'Edit link' : props.template ? 'Duplicate link' : 'New link'}</h2>
      <div class="grid">{LINK_FIELDS.filter((f) => !f.advanced).map(fieldOf)}</div>
      <details class="more-options" open={more} onToggle={(e) => setMore(e.currentTarget.open)}>
        <summary>More options: campaign tracking, rules, redirect type, expiry, click limit, password</summary>
        <UtmBuilder url={values.destination ?? ''} onChange={(destination) => setValues({ ...values, destination })} />
        <RulesEditor drafts={rules} onChange={setRules} error={error} problems={problems} />
        <h3>Expiry and access</h3>
        <div class="grid">{LINK_FIELDS.filter((f) => f.advanced).map(fieldOf)}</div>
        {hasPassword ? (
          <label class="inline-check">
            <input type="checkbox" checked={removePassword} onChange={(e) => setRemovePassword(e.currentTarget.checked)} />
            Remove the password (anyone with the link is sent on)
          </label>
        ) : null}
      </details>
      <PreviewEditor
        text={preview}
        onChange={setPreview}
        error={error}
        initiallyOpen={props.link?.preview != null}
        linkTitle={values.title ?? ''}
        domain={values.domain || usable[0]?.name || props.link?.domain || ''}
      />
      <ErrorBox error={generalError(error, [...LINK_FIELDS.map((f) => f.name), ...PREVIEW_PARAMS.slice(1), 'rules'])} />
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
