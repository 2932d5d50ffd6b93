import { Field } from '../ui'
import { withScheme } from './link-urls'

/**
 * Campaign parameters (utm_source, utm_medium…) written into the query of the link's URL, and read
 * back from it: the URL is the one place they live, so the box above and these fields always agree.
 */
const UTM = [
  { key: 'utm_source', label: 'Source', placeholder: 'newsletter' },
  { key: 'utm_medium', label: 'Medium', placeholder: 'email' },
  { key: 'utm_campaign', label: 'Campaign', placeholder: 'summer-sale' },
  { key: 'utm_term', label: 'Term', placeholder: 'running shoes' },
  { key: 'utm_content', label: 'Content', placeholder: 'header-button' },
] as const

/** The URL the form's text means, or null while it is none yet. */
const parse = (text: string): URL | null => {
  const t = withScheme(text)
  return URL.canParse(t) ? new URL(t) : null
}

export function UtmBuilder(props: { url: string; onChange: (url: string) => void }) {
  const url = parse(props.url)
  const set = (key: string, value: string) => {
    if (url === null) return
    if (value === '') url.searchParams.delete(key)
    else url.searchParams.set(key, value)
    props.onChange(url.href)
  }
  return (
    <div class="utm-builder">
      <h3>Campaign tracking (UTM)</h3>
      <p class="hint">{url === null ? 'Type the URL above first: these fields write its query.' : 'Written into the query of the URL above.'}</p>
      <div class="utm-fields">
        {UTM.map((u) => (
          <Field key={u.key} label={`${u.label} (${u.key})`} name={u.key} error={null}>
            <input
              name={u.key}
              type="text"
              autoComplete="off"
              value={url?.searchParams.get(u.key) ?? ''}
              placeholder={u.placeholder}
              disabled={url === null}
              onInput={(e) => set(u.key, e.currentTarget.value)}
            />
          </Field>
        ))}
      </div>
    </div>
  )
}
