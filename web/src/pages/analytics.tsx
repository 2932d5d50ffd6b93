import { useEffect, useState } from 'preact/hooks'
import { call, client, type Domain } from '../api'
import { AnalyticsView } from '../analytics'
import { useQueryState } from '../router'
import type { Scope } from '../stats-api'

/**
 * Statistics across links: every link, the links of a tag, or a domain's (`?tag=` or `?domain=` in
 * the URL). A top link opens that link's own page, with its statistics.
 */
export function AnalyticsPage() {
  const { query, set } = useQueryState()
  const tag = query.get('tag') ?? ''
  const domain = query.get('domain') ?? ''
  const [domains, setDomains] = useState<Domain[]>([])
  const [tagInput, setTagInput] = useState(tag)
  useEffect(() => {
    call(client.GET('/v1/domains')).then(
      (r) => setDomains(r.data),
      () => setDomains([]),
    )
  }, [])
  useEffect(() => setTagInput(tag), [tag])
  const scope: Scope = tag !== '' ? { kind: 'tag', tag } : domain !== '' ? { kind: 'domain', domain } : { kind: 'all' }
  return (
    <section>
      <header class="page-header">
        <h1>Analytics</h1>
      </header>
      <form
        class="toolbar scope"
        onSubmit={(e) => {
          e.preventDefault()
          set({ tag: tagInput.trim(), domain: null })
        }}
      >
        <select
          aria-label="Domain"
          value={domain}
          onChange={(e) => {
            setTagInput('')
            set({ domain: e.currentTarget.value, tag: null })
          }}
        >
          <option value="">All domains</option>
          {domains.map((d) => (
            <option key={d.name} value={d.name}>
              {d.name}
            </option>
          ))}
        </select>
        <input type="text" class="tag-filter" aria-label="Tag" placeholder="Tag" value={tagInput} onInput={(e) => setTagInput(e.currentTarget.value)} />
        <button type="submit">Show tag</button>
        {tag !== '' || domain !== '' ? (
          <button type="button" class="small" onClick={() => set({ tag: null, domain: null })}>
            All links
          </button>
        ) : null}
      </form>
      <AnalyticsView
        scope={scope}
        csv
        title={tag !== '' ? `Links tagged “${tag}”` : domain !== '' ? `Links on ${domain}` : 'All links'}
        emptyHint="No clicks in this range."
      />
    </section>
  )
}
