import { useEffect, useState } from 'preact/hooks'
import { call, client, type Domain, type Link, type operations } from '../api'
import { navigate } from '../router'
import { asyncHandler, A, confirmed, CopyButton, Empty, ErrorBox, Loading, formatDate, formatDay } from '../ui'
import { LinkForm } from './link-form'

type LinkPage = operations['getLinks']['responses'][200]['content']['application/json']
type SearchField = 'title' | 'destination' | 'path'

const SEARCH_FIELDS: { value: SearchField; label: string }[] = [
  { value: 'title', label: 'Title' },
  { value: 'destination', label: 'Destination' },
  { value: 'path', label: 'Path' },
]

export function LinksPage({ canWrite }: { canWrite: boolean }) {
  const [page, setPage] = useState(1)
  const [searchField, setSearchField] = useState<SearchField>('title')
  const [search, setSearch] = useState('')
  const [applied, setApplied] = useState<{ field: SearchField; value: string }>({ field: 'title', value: '' })
  const [domain, setDomain] = useState('')
  const [tagInput, setTagInput] = useState('')
  const [tag, setTag] = useState('')
  const [data, setData] = useState<LinkPage | null>(null)
  const [domains, setDomains] = useState<Domain[]>([])
  const [error, setError] = useState<unknown>(null)
  const [editing, setEditing] = useState<Link | 'new' | null>(null)
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [version, setVersion] = useState(0)

  useEffect(() => {
    call(client.GET('/v1/domains')).then(
      (r) => setDomains(r.data),
      () => setDomains([]),
    )
  }, [])

  useEffect(() => {
    let live = true
    setError(null)
    // Exact-match filters, sent as query[title]=…; an empty box filters nothing.
    const filters: Partial<Record<SearchField | 'domain', string>> & { tag?: string[] } = {}
    if (applied.value !== '') filters[applied.field] = applied.field === 'path' && !applied.value.startsWith('/') ? `/${applied.value}` : applied.value
    if (domain !== '') filters.domain = domain
    if (tag !== '') filters.tag = [tag]
    call(client.GET('/v1/links', { params: { query: { page, limit: 20, query: Object.keys(filters).length > 0 ? filters : undefined } } })).then(
      (r) => live && setData(r),
      (e) => live && (setError(e), setData(null)),
    )
    return () => {
      live = false
    }
  }, [page, applied, domain, tag, version])

  const reload = () => setVersion((v) => v + 1)
  const remove = async (link: Link) => {
    if (!confirmed(`Delete ${link.shortUrl}? Its statistics and conversations go with it, and the short URL stops working at once.`)) return
    try {
      await call(client.DELETE('/v1/links/{id}', { params: { path: { id: link.id } } }))
      reload()
    } catch (e) {
      setError(e)
    }
  }
  const removeSelected = async () => {
    if (!confirmed(`Delete ${selected.size} link${selected.size === 1 ? '' : 's'}? Their statistics and conversations go with them.`)) return
    try {
      // One request (docs/api/links.md#bulk); an id that is already gone comes back `deleted: false`, which is fine here.
      await call(client.POST('/v1/links/bulk-delete', { body: { ids: [...selected] } }))
    } catch (e) {
      setError(e)
    }
    setSelected(new Set())
    reload()
  }
  const filterByTag = (value: string) => {
    setPage(1)
    setTagInput(value)
    setTag(value)
  }
  const toggle = (id: string) => {
    const next = new Set(selected)
    if (next.has(id)) next.delete(id)
    else next.add(id)
    setSelected(next)
  }

  return (
    <section>
      <header class="page-header">
        <h1>Links</h1>
        {canWrite ? (
          <button class="primary" onClick={() => setEditing('new')}>
            New link
          </button>
        ) : null}
      </header>
      {editing !== null ? (
        <LinkForm
          link={editing === 'new' ? null : editing}
          domains={domains}
          onCancel={() => setEditing(null)}
          onSaved={() => {
            setEditing(null)
            setPage(1)
            reload()
          }}
        />
      ) : null}
      <form
        class="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          setPage(1)
          setApplied({ field: searchField, value: search.trim() })
          setTag(tagInput.trim())
        }}
      >
        <select aria-label="Search in" value={searchField} onChange={(e) => setSearchField(e.currentTarget.value as SearchField)}>
          {SEARCH_FIELDS.map((f) => (
            <option key={f.value} value={f.value}>
              {f.label}
            </option>
          ))}
        </select>
        <input type="search" name="search" placeholder="Exact title, destination or path" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        <button type="submit">Search</button>
        <select
          aria-label="Domain"
          value={domain}
          onChange={(e) => {
            setPage(1)
            setDomain(e.currentTarget.value)
          }}
        >
          <option value="">All domains</option>
          {domains.map((d) => (
            <option key={d.name} value={d.name}>
              {d.name}
            </option>
          ))}
        </select>
        <input
          type="text"
          class="tag-filter"
          aria-label="Filter by tag"
          placeholder="Tag"
          value={tagInput}
          onInput={(e) => setTagInput(e.currentTarget.value)}
          onChange={(e) => filterByTag(e.currentTarget.value.trim())}
        />
        {tag !== '' ? (
          <button type="button" class="small" onClick={() => filterByTag('')}>
            Clear tag “{tag}”
          </button>
        ) : null}
        {selected.size > 0 && canWrite ? (
          <button type="button" class="danger" onClick={asyncHandler(removeSelected)}>
            Delete {selected.size} selected
          </button>
        ) : null}
      </form>
      <ErrorBox error={error} />
      {data === null && error === null ? <Loading what="links" /> : null}
      {data !== null && data.data.length === 0 ? (
        <Empty>
          {applied.value !== '' || domain !== '' || tag !== '' ? 'No link matches this search.' : 'No links yet. Create the first one with “New link”.'}
        </Empty>
      ) : null}
      {data !== null && data.data.length > 0 ? (
        <div class="table-wrap">
          <table class="links cards">
            <thead>
              <tr>
                <th class="check">
                  <input
                    type="checkbox"
                    aria-label="Select all on this page"
                    checked={data.data.every((l) => selected.has(l.id))}
                    onChange={(e) => setSelected(e.currentTarget.checked ? new Set(data.data.map((l) => l.id)) : new Set())}
                  />
                </th>
                <th>Short URL</th>
                <th>Destination</th>
                <th>Title and tags</th>
                <th>Created</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((link) => (
                <tr key={link.id} data-link={link.id}>
                  <td class="check">
                    <input type="checkbox" aria-label={`Select ${link.shortUrl}`} checked={selected.has(link.id)} onChange={() => toggle(link.id)} />
                  </td>
                  <td class="short">
                    <A to={`/links/${link.id}`}>{link.shortUrl.replace(/^https?:\/\//, '')}</A> <CopyButton text={link.shortUrl} />
                    <Markers link={link} />
                  </td>
                  <td class="destination" title={link.destination} data-label="Destination">
                    {link.destination}
                  </td>
                  <td class="title" data-label="Title and tags">
                    {link.title ?? <span class="muted">—</span>}
                    <span class="chips">
                      {(link.tags ?? []).map((t) => (
                        <button
                          type="button"
                          key={t}
                          class={t === tag ? 'tag active' : 'tag'}
                          title={`Show only links tagged ${t}`}
                          onClick={() => filterByTag(t)}
                        >
                          {t}
                        </button>
                      ))}
                    </span>
                  </td>
                  <td class="nowrap" title={formatDate(link.createdAt)} data-label="Created">
                    {formatDay(link.createdAt)}
                  </td>
                  <td class="row-actions">
                    <button class="small" onClick={() => navigate(`/links/${link.id}`)}>
                      Stats &amp; QR
                    </button>
                    {canWrite ? (
                      <button class="small" onClick={() => setEditing(link)}>
                        Edit
                      </button>
                    ) : null}
                    {canWrite ? (
                      <button class="small danger" onClick={asyncHandler(() => remove(link))}>
                        Delete
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {data !== null && (page > 1 || data.pagination.hasMore) ? (
        <nav class="pager">
          <button disabled={page === 1} onClick={() => setPage(page - 1)}>
            ← Newer
          </button>
          <span>Page {page}</span>
          <button disabled={!data.pagination.hasMore} onClick={() => setPage(page + 1)}>
            Older →
          </button>
        </nav>
      ) : null}
    </section>
  )
}

/** What changes how a link behaves for a visitor, at a glance: a password, an expiry, a click limit. */
function Markers({ link }: { link: Link }) {
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
