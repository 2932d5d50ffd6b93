import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, describeError, type Link } from './api'
import { BASE, onNavigate } from './router'

export function A(props: { to: string; children: ComponentChildren; class?: string; current?: boolean; title?: string }) {
  const { to, children, class: className, current, title } = props
  return (
    <a href={`${BASE}${to}`} onClick={onNavigate(to)} class={className} aria-current={current ? 'page' : undefined} title={title}>
      {children}
    </a>
  )
}

/** An error that belongs to no one field: shown where the action happened. */
export function ErrorBox({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null
  return (
    <div class="error" role="alert">
      {describeError(error)}
    </div>
  )
}

/** The error for one field, when the API named that field (`param`). */
export function fieldError(error: unknown, ...names: string[]): string | null {
  return error instanceof ApiError &&
    error.param !== null &&
    names.some((n) => error.param === n || error.param?.startsWith(`${n}[`) || error.param?.startsWith(`${n}.`))
    ? describeError(error)
    : null
}
/** The error when no field on the form carries it. */
export const generalError = (error: unknown, fields: string[]) => (fieldError(error, ...fields) === null ? error : null)

/** A labelled control with its hint, or its error: the API's when it named this field, else `problem` (found before sending). */
export function Field(props: { label: string; name: string; error: unknown; problem?: string; hint?: string; children: ComponentChildren }) {
  const message = fieldError(props.error, props.name) ?? props.problem ?? null
  return (
    <label class={message ? 'field invalid' : 'field'} data-field={props.name}>
      <span class="label">{props.label}</span>
      {props.children}
      {props.hint && !message ? <span class="hint">{props.hint}</span> : null}
      {message ? (
        <span class="field-error" role="alert">
          {message}
        </span>
      ) : null}
    </label>
  )
}

export const Loading = ({ what }: { what: string }) => (
  <p class="muted loading" aria-busy="true">
    Loading {what}…
  </p>
)
export const Empty = ({ children }: { children: ComponentChildren }) => <div class="empty">{children}</div>

/**
 * An event handler that runs async work. The work shows the failures it expects itself (in an error
 * state); anything else is reported as an uncaught error would be, not lost with its promise.
 */
export const asyncHandler =
  <A extends unknown[]>(work: (...args: A) => Promise<unknown>) =>
  (...args: A): void => {
    work(...args).catch(reportError)
  }

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | null>(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setDone('copied')
    } catch {
      setDone('failed')
    }
    setTimeout(() => setDone(null), 1500)
  }
  const said = done === 'copied' ? 'Copied' : done === 'failed' ? 'Select and copy' : null
  return (
    <>
      <button type="button" class="small" onClick={asyncHandler(copy)} title={`Copy ${text}`}>
        {said ?? label}
      </button>
      {/* A screen reader hears the change of the button's text only from a live region. */}
      <span class="visually-hidden" aria-live="polite">
        {said}
      </span>
    </>
  )
}

export function formatDate(iso: string | number | null): string {
  if (iso === null) return '—'
  const date = typeof iso === 'number' ? new Date(iso * 1000) : new Date(iso)
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}

export const formatDay = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' })

/** The tab's title names the page: history, bookmarks and a screen reader tell the tabs apart. */
export function usePageTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Linkline`
  }, [title])
}

/** Asks before a destructive action; returns whether the person agreed. */
export const confirmed = (question: string) => window.confirm(question)

/** The server's rule (accounts.service.ts PASSWORD_MIN_LENGTH); the server checks it again. */
export const PASSWORD_MIN_LENGTH = 10
export const PASSWORD_HINT = `At least ${PASSWORD_MIN_LENGTH} characters. A few unrelated words make a good one.`

/**
 * A secret URL the API shows in one response only (an invitation, a reset link): copy it now. It takes
 * the focus when it appears, so that the keyboard and a screen reader reach it first; `onDone` puts the
 * focus back where the person came from.
 */
export function OneTimeUrl(props: { url: string; title: string; children?: ComponentChildren; onDone: () => void; testId: string }) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => box.current?.focus(), [props.url])
  const titleId = `${props.testId}-title`
  return (
    <div class="notice one-time" role="status" tabIndex={-1} ref={box} aria-labelledby={titleId} data-testid={props.testId}>
      <strong id={titleId}>{props.title}</strong>
      <p class="small-print">Copy this link now: it is shown only once.</p>
      <code class="secret">{props.url}</code>
      {props.children}
      <div class="actions">
        <CopyButton text={props.url} label="Copy link" />
        <button type="button" class="small" onClick={props.onDone}>
          Done
        </button>
      </div>
    </div>
  )
}

/** One person's initial, for the account button. */
export const initial = (text: string) => (text.trim().charAt(0) || '?').toUpperCase()

const HEALTH_LABELS = { ok: 'ok', broken: 'broken', unknown: 'not checked' } as const

/** The destination's health at a glance (docs/api/link-care.md#destination-health); the title says what the last check found. */
export function HealthBadge({ health }: { health: Link['health'] }) {
  const detail = health.error === null || health.error === 'http_status' ? `HTTP ${health.httpStatus}` : health.error.replace(/_/g, ' ')
  const found = health.checkedAt === null ? 'Not checked yet' : `Checked ${formatDate(health.checkedAt)}: ${detail}`
  return (
    <span class={`tag health ${health.status}`} data-health={health.status} title={found}>
      {HEALTH_LABELS[health.status]}
    </span>
  )
}

/** What changes how a link behaves for a visitor, at a glance: a password, an expiry, a click limit. */
export function Markers({ link }: { link: Link }) {
  const expired = link.expiresAt != null && Date.parse(link.expiresAt) <= Date.now()
  return (
    <span class="markers">
      {link.hasPassword ? (
        <span class="tag warn" data-marker="password" title="Visitors must type a password">
          password
        </span>
      ) : null}
      {link.expiresAt != null ? (
        <span class="tag warn" data-marker="expiry" title={`${expired ? 'Expired' : 'Expires'} ${formatDate(link.expiresAt)}`}>
          {expired ? 'expired' : `until ${formatDay(link.expiresAt)}`}
        </span>
      ) : null}
      {link.maxClicks != null ? (
        <span class="tag warn" data-marker="max-clicks" title={`Expires after ${link.maxClicks} human visits`}>
          max {link.maxClicks}
        </span>
      ) : null}
    </span>
  )
}
