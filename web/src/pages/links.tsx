import { useEffect, useState } from 'preact/hooks'
import { call, client, type Domain, type Link, type operations } from '../api'
import { noteCreated, useTitlePoll } from '../page-titles'
import { useQueryState } from '../router'
import { asyncHandler, A, confirmed, CopyButton, Empty, ErrorBox, HealthBadge, Loading, Markers, formatDate, formatDay } from '../ui'
import { LinkForm } from './link-form'
import { BulkBar, filterParams, type Selection } from './links-bulk'
import './links.css'

type LinkPage = operations['getLinks']['responses'][200]['content']['application/json']
type Sort = 'createdAt' | 'clicks' | 'lastClickedAt'
const SORTS = [
  ['-createdAt', 'Newest first'],
  ['createdAt', 'Oldest first'],
  ['-clicks', 'Most clicks'],
  ['clicks', 'Fewest clicks'],
  ['-lastClickedAt', 'Clicked lately'],
  ['lastClickedAt', 'Clicked longest ago'],
] as const

const HEALTH_FILTERS = { '': 'Any health', broken: 'Broken', ok: 'OK', unknown: 'Not checked' }

/** The list's state is its URL (`?q=sale&sort=-clicks&tag=print&domain=go.example.com&health=broken&page=2`): reload and Back keep it. */
function listQuery(query: URLSearchParams): string {
  const params = filterParams(query)
  params.set('limit', '20')
  params.set('page', query.get('page') ?? '1')
  const sort = query.get('sort')
  if (sort) params.set('sort', sort)
  return params.toString()
}

export function LinksPage({ canWrite }: { canWrite: boolean }) {
  const { query, set } = useQueryState()
  const page = Math.max(1, Number(query.get('page')) || 1)
  const q = query.get('q') ?? ''
  const sort = query.get('sort') ?? '-createdAt'
  const tags = query.getAll('tag')
  const tag = tags[0] ?? ''
  const domain = query.get('domain') ?? ''
  const health = query.get('health') ?? ''
  const [search, setSearch] = useState(q)
  const [tagInput, setTagInput] = useState(tag)
  const [data, setData] = useState<LinkPage | null>(null)
  const [domains, setDomains] = useState<Domain[]>([])
  const [error, setError] = useState<unknown>(null)
  const [editing, setEditing] = useState<Link | 'new' | null>(null)
  const [selected, setSelected] = useState<Selection>(new Map())
  const [version, setVersion] = useState(0)
  const setPage = (n: number) => set({ page: n === 1 ? null : String(n) })

  useEffect(() => {
    call(client.GET('/v1/domains')).then(
      (r) => setDomains(r.data),
      () => setDomains([]),
    )
  }, [])
  // Back or a reload brings another URL: the boxes follow it.
  useEffect(() => setSearch(q), [q])
  useEffect(() => setTagInput(tag), [tag])
  // Typing searches after a short pause: one request per pause, not per keystroke.
  useEffect(() => {
    if (search.trim() === q.trim()) return
    const timer = setTimeout(() => set({ q: search.trim(), page: null }), 300)
    return () => clearTimeout(timer)
  }, [search])

  const listed = listQuery(query)
  // Another filter, another set of links: a selection made under the last one would act on links no longer shown.
  const filtered = filterParams(query).toString()
  useEffect(() => setSelected(new Map()), [filtered])
  useEffect(() => {
    let live = true
    setError(null)
    call(client.GET('/v1/links', { querySerializer: () => listed })).then(
      (r) => live && setData(r),
      (e) => live && (setError(e), setData(null)),
    )
    return () => {
      live = false
    }
  }, [listed, version])

  const reload = () => setVersion((v) => v + 1)
  // A link just created without a title gets its page's title shortly: the list asks again until it shows.
  useTitlePoll(data?.data, reload)
  const remove = async (link: Link) => {
    if (!confirmed(`Delete ${link.shortUrl}? Its statistics and conversations go with it, and the short URL stops working at once.`)) return
    try {
      await call(client.DELETE('/v1/links/{id}', { params: { path: { id: link.id } } }))
      reload()
    } catch (e) {
      setError(e)
    }
  }
  const filterByTag = (value: string) => {
    setTagInput(value)
    set({ tag: value, page: null })
  }
  /** A header's first click sorts the busiest (or newest) first; the next one reverses. */
  const sortBy = (field: Sort) => set({ sort: sort === `-${field}` ? field : `-${field}`, page: null })
  const sortHeader = (field: Sort, label: string, className?: string) => {
    const direction = sort === field ? 'ascending' : sort === `-${field}` ? 'descending' : undefined
    return (
      <th class={className} aria-sort={direction}>
        <button type="button" class="sort" data-sort={field} onClick={() => sortBy(field)}>
          {label}
          <span aria-hidden="true">{direction === 'ascending' ? ' ↑' : direction === 'descending' ? ' ↓' : ''}</span>
        </button>
      </th>
    )
  }
  const toggle = (link: Link) => {
    const next = new Map(selected)
    if (!next.delete(link.id)) next.set(link.id, link)
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
          onSaved={(saved) => {
            if (editing === 'new') noteCreated(saved)
            setEditing(null)
            if (page !== 1) setPage(1)
            reload()
          }}
        />
      ) : null}
      <form
        class="toolbar links-toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          set({ q: search.trim(), tag: tagInput.trim(), page: null })
        }}
      >
        <input
          type="search"
          name="search"
          aria-label="Search links"
          placeholder="Search title, path, destination, tag"
          value={search}
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
        <select
          aria-label="Sort by"
          value={sort}
          onChange={(e) => set({ sort: e.currentTarget.value === '-createdAt' ? null : e.currentTarget.value, page: null })}
        >
          {SORTS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <select aria-label="Domain" value={domain} onChange={(e) => set({ domain: e.currentTarget.value, page: null })}>
          <option value="">All domains</option>
          {domains.map((d) => (
            <option key={d.name} value={d.name}>
              {d.name}
            </option>
          ))}
        </select>
        <select aria-label="Filter by health" value={health} onChange={(e) => set({ health: e.currentTarget.value, page: null })}>
          {Object.entries(HEALTH_FILTERS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
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
      </form>
      {data !== null ? (
        <BulkBar
          query={query}
          rows={data.data}
          paged={page > 1 || data.pagination.hasMore}
          selected={selected}
          setSelected={setSelected}
          canWrite={canWrite}
          version={version}
          onChanged={reload}
        />
      ) : null}
      <ErrorBox error={error} />
      {data === null && error === null ? <Loading what="links" /> : null}
      {data !== null && data.data.length === 0 ? (
        <Empty>
          {health === 'broken' && q === '' && domain === '' && tag === ''
            ? 'No broken destinations: every checked link answered.'
            : q !== '' || domain !== '' || tag !== '' || health !== ''
              ? 'No link matches this search.'
              : 'No links yet. Create the first one with “New link”.'}
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
                    onChange={(e) => setSelected(e.currentTarget.checked ? new Map(data.data.map((l) => [l.id, l])) : new Map())}
                  />
                </th>
                <th class="short">Short URL</th>
                <th class="destination">Destination</th>
                <th class="title">Title and tags</th>
                {sortHeader('clicks', 'Clicks', 'num')}
                {sortHeader('lastClickedAt', 'Last click', 'when')}
                {sortHeader('createdAt', 'Created', 'when')}
                <th class="row-actions">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((link) => (
                <tr key={link.id} data-link={link.id}>
                  <td class="check">
                    <input type="checkbox" aria-label={`Select ${link.shortUrl}`} checked={selected.has(link.id)} onChange={() => toggle(link)} />
                  </td>
                  <td class="short">
                    <span class="short-line">
                      <A to={`/links/${link.id}`} title={link.shortUrl}>
                        {link.shortUrl.replace(/^https?:\/\//, '')}
                      </A>{' '}
                      <CopyButton text={link.shortUrl} />
                    </span>
                    <Markers link={link} />
                  </td>
                  <td class="destination" data-label="Destination">
                    <HealthBadge health={link.health} />{' '}
                    <span class="ellipsis" title={link.destination}>
                      {link.destination}
                    </span>
                  </td>
                  <td class="title" data-label="Title and tags">
                    {link.title !== null ? (
                      <span class="ellipsis" title={link.title}>
                        {link.title}
                      </span>
                    ) : (
                      <span class="muted">—</span>
                    )}
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
                  <td class="num" data-label="Clicks" data-clicks={link.clicks}>
                    <A to={`/links/${link.id}`} title="Statistics and QR code">
                      {link.clicks.toLocaleString()}
                    </A>
                  </td>
                  <td class="when" data-label="Last click" title={link.lastClickedAt ? formatDate(link.lastClickedAt) : 'Never clicked'}>
                    {link.lastClickedAt ? formatDay(link.lastClickedAt) : <span class="muted">never</span>}
                  </td>
                  <td class="when" title={formatDate(link.createdAt)} data-label="Created">
                    {formatDay(link.createdAt)}
                  </td>
                  <td class="row-actions">
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
        <nav class="pager" aria-label="Pages of links">
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
