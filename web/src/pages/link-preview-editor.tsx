import type { Link } from '../api'
import { Field } from '../ui'

/**
 * The link form's "Social preview" section (docs/api/links.md#social-previews): the card that Slack,
 * X, LinkedIn, WhatsApp… show when the short link is shared, its three fields, and a mock of the card.
 * Folded unless the link has a preview. The mock shows no image: the dashboard loads no image from
 * outside (its CSP), and one typed by someone else would tell its host who looked.
 */
export type PreviewText = { title: string; description: string; image: string }
type PreviewBody = { title: string | null; description: string | null; image: string | null } | null

const FIELDS = [
  { key: 'title', label: 'Headline', max: 200, hint: 'Empty: the name the link has above', placeholder: 'Summer sale' },
  { key: 'description', label: 'Card text', max: 500, hint: 'Up to 500 characters', placeholder: 'Half off, this week only' },
  { key: 'image', label: 'Card image', max: 2048, hint: 'An https URL, e.g. 1200 × 630 pixels', placeholder: 'https://example.com/card.png' },
] as const

/** The names the API gives this section's errors (`param`), for the form's general error. */
export const PREVIEW_PARAMS = ['preview', ...FIELDS.map((f) => `preview[${f.key}]`)]

export const previewText = (link: Link | null): PreviewText => ({
  title: link?.preview?.title ?? '',
  description: link?.preview?.description ?? '',
  image: link?.preview?.image ?? '',
})

/**
 * The body's `preview`, or undefined to leave it out: on create, only when a field is filled; on
 * edit, only when something changed, then the whole preview (it replaces the old one), null when emptied.
 */
export function previewBody(text: PreviewText, link: Link | null): PreviewBody | undefined {
  const value = (s: string) => (s.trim() === '' ? null : s.trim())
  const body = { title: value(text.title), description: value(text.description), image: value(text.image) }
  const empty = body.title === null && body.description === null && body.image === null
  if (link === null) return empty ? undefined : body
  const before = previewText(link)
  if (FIELDS.every((f) => text[f.key].trim() === before[f.key])) return undefined
  return empty ? null : body
}

/** The host an image or short URL names, for the mock; empty when the text is no URL yet. */
const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).host : '')

export function PreviewEditor(props: {
  text: PreviewText
  onChange: (text: PreviewText) => void
  error: unknown
  /** Unfolded at first: the link has a preview. */
  initiallyOpen: boolean
  linkTitle: string
  domain: string
}) {
  const { text } = props
  const title = text.title.trim() || props.linkTitle.trim() || props.domain
  const imageHost = hostOf(text.image.trim())
  return (
    <details class="social-preview" open={props.initiallyOpen}>
      <summary>Social preview</summary>
      <p class="hint">What chat and social apps show when the short link is shared. Empty: they show what they find.</p>
      <div class="preview-editor">
        <div>
          {FIELDS.map((f) => (
            <Field key={f.key} label={f.label} name={`preview[${f.key}]`} error={props.error} hint={f.hint}>
              {f.key === 'description' ? (
                <textarea
                  name={`preview[${f.key}]`}
                  rows={3}
                  maxLength={f.max}
                  value={text[f.key]}
                  placeholder={f.placeholder}
                  onInput={(e) => props.onChange({ ...text, [f.key]: e.currentTarget.value })}
                />
              ) : (
                <input
                  name={`preview[${f.key}]`}
                  type={(f.key === 'image' ? 'url' : 'text') as 'text'}
                  maxLength={f.max}
                  value={text[f.key]}
                  placeholder={f.placeholder}
                  onInput={(e) => props.onChange({ ...text, [f.key]: e.currentTarget.value })}
                />
              )}
            </Field>
          ))}
        </div>
        <figure class="preview-card" aria-label="How the card will look">
          {imageHost === '' ? null : (
            <div class="preview-image" role="img" aria-label={`Image from ${imageHost}`}>
              <span>Image from {imageHost}</span>
            </div>
          )}
          <figcaption>
            <span class="preview-domain">{props.domain}</span>
            <strong class="preview-title">{title}</strong>
            {text.description.trim() === '' ? null : <span class="preview-description">{text.description.trim()}</span>}
          </figcaption>
        </figure>
      </div>
    </details>
  )
}
