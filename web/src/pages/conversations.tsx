import { useEffect, useRef, useState } from 'preact/hooks'
import { call, client, type Conversation, type Message, type operations } from '../api'
import { navigate } from '../router'
import { asyncHandler, A, Empty, ErrorBox, Field, Loading, formatDate, generalError } from '../ui'
import { nameOf, Thread } from './conversation-thread'
import './conversations.css'

type Page = operations['getConversations']['responses'][200]['content']['application/json']
type ListQuery = NonNullable<operations['getConversations']['parameters']['query']>
type Filter = '' | 'true' | 'false'
type Filters = { muted: Filter; archived: Filter }
/** The newest message of a conversation, null when it has none, 'failed' when it could not be read. */
type Preview = Message | null | 'failed'

/** Conversations a page, below the pinned ones. */
const PAGE_SIZE = 20
/** Pinned conversations are few by nature: the most recently active of them, all on one page. */
const PINNED_LIMIT = 100
/** The API's bound on `contact_id` and `group_id`: longer text cannot be one. */
const MAX_ID_LENGTH = 128
const SEARCH_DELAY_MS = 250

/** A filter's select as the query's boolean: '' filters nothing. */
const flag = (filter: Filter) => (filter === '' ? undefined : filter === 'true')
const activity = (c: Conversation) => c.last_active_at ?? c.created_at
/** Unread: it has a message newer than its last opening, or it has messages and was never opened. */
const isUnread = (c: Conversation) => c.last_active_at !== null && (c.last_opened_at === null || c.last_active_at > c.last_opened_at)
/** The list's own order: most recently active first, then the newest id. */
const byActivity = (a: Conversation, b: Conversation) => activity(b) - activity(a) || (b.id > a.id ? 1 : b.id < a.id ? -1 : 0)

/** A short time for the list: the hour today, the day otherwise (the full date in its tooltip). */
function shortWhen(seconds: number): string {
  const date = new Date(seconds * 1000)
  const now = new Date()
  if (date.toDateString() === now.toDateString()) return date.toLocaleTimeString(undefined, { timeStyle: 'short' })
  return date.toLocaleDateString(undefined, date.getFullYear() === now.getFullYear() ? { month: 'short', day: 'numeric' } : { dateStyle: 'medium' })
}

/**
 * The newest message of each conversation shown, for its preview: the API's conversation has no
 * message in it, so each is read with `GET …/messages?limit=1`, once per `last_active_at` (a new
 * message moves it). `forget` reads one again (a deleted message does not move it).
 */
function usePreviews(conversations: readonly Conversation[]) {
  const [previews, setPreviews] = useState<ReadonlyMap<string, Preview>>(new Map())
  /** What was asked for each conversation: its `last_active_at` then. */
  const asked = useRef(new Map<string, number>())
  // After every render: cheap, and only what was not asked yet is read.
  useEffect(() => {
    for (const c of conversations) {
      const at = c.last_active_at
      if (at === null || asked.current.get(c.id) === at) continue
      asked.current.set(c.id, at)
      // An answer for a `last_active_at` passed meanwhile is dropped: a later one is on its way.
      const set = (preview: Preview) => asked.current.get(c.id) === at && setPreviews((old) => new Map(old).set(c.id, preview))
      call(client.GET('/v1/conversations/{id}/messages', { params: { path: { id: c.id }, query: { limit: 1 } } })).then(
        (page) => set(page.data[0] ?? null),
        () => set('failed'),
      )
    }
  })
  const previewOf = (c: Conversation): Preview | undefined => (c.last_active_at === null ? null : previews.get(c.id))
  return { previewOf, forget: (id: string) => asked.current.delete(id) }
}

function previewText(preview: Preview | undefined): string {
  if (preview === undefined) return '…'
  if (preview === null) return 'No messages yet'
  if (preview === 'failed') return 'Preview unavailable'
  return preview.direction === 'outbound' ? `You: ${preview.text}` : preview.text
}

function Row({ c, preview, open }: { c: Conversation; preview: Preview | undefined; open: boolean }) {
  const unread = isUnread(c)
  return (
    <li class={unread ? 'unread' : undefined} data-conversation-row={c.id} data-unread={unread ? 'true' : undefined}>
      <A to={`/conversations/${c.id}`} class={open ? 'active' : undefined} current={open}>
        <span class="conv-top">
          <strong class="conv-name">{nameOf(c)}</strong>
          <time dateTime={new Date(activity(c) * 1000).toISOString()} title={formatDate(activity(c))}>
            {shortWhen(activity(c))}
          </time>
        </span>
        <span class="conv-preview">{previewText(preview)}</span>
        {unread || c.is_muted || c.archived_at !== null ? (
          <span class="conv-flags">
            {unread ? <span class="tag unread-tag">Unread</span> : null}
            {c.is_muted ? <span class="tag">muted</span> : null}
            {c.archived_at !== null ? <span class="tag">archived</span> : null}
          </span>
        ) : null}
      </A>
    </li>
  )
}

/**
 * The list and the open conversation: side by side on a wide screen; on a narrow one the open
 * conversation is the whole view, with a way back to the list (conversations.css).
 */
export function ConversationsPage({ openId, canWrite }: { openId: string | null; canWrite: boolean }) {
  const [filters, setFilters] = useState<Filters>({ muted: '', archived: 'false' })
  const [cursor, setCursor] = useState<{ starting_after?: string; ending_before?: string }>({})
  const [pinned, setPinned] = useState<Page | null>(null)
  const [page, setPage] = useState<Page | null>(null)
  /** Conversations whose contact or group id is the search text exactly, wherever they are in the list. */
  const [found, setFound] = useState<Conversation[]>([])
  const [search, setSearch] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [version, setVersion] = useState(0)
  const [contact, setContact] = useState('')
  const [createError, setCreateError] = useState<unknown>(null)

  const shared: ListQuery = { muted: flag(filters.muted), archived: flag(filters.archived) }
  useEffect(() => {
    let live = true
    Promise.all([
      call(client.GET('/v1/conversations', { params: { query: { ...shared, limit: PINNED_LIMIT, pinned: true } } })),
      call(client.GET('/v1/conversations', { params: { query: { ...shared, limit: PAGE_SIZE, pinned: false, ...cursor } } })),
    ]).then(
      ([p, r]) => live && (setPinned(p), setPage(r), setError(null)),
      (e) => live && setError(e),
    )
    return () => {
      live = false
    }
  }, [filters, cursor, version])

  const term = search.trim()
  useEffect(() => {
    if (term === '' || term.length > MAX_ID_LENGTH) {
      setFound([])
      return
    }
    let live = true
    const timer = setTimeout(() => {
      const exact = (query: ListQuery) => call(client.GET('/v1/conversations', { params: { query: { ...shared, ...query, limit: 1 } } }))
      Promise.all([exact({ contact_id: term }), exact({ group_id: term })]).then(
        (pages) => live && setFound(pages.flatMap((p) => p.data)),
        // The search on what is shown still works; the lookup is a bonus.
        () => live && setFound([]),
      )
    }, SEARCH_DELAY_MS)
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [term, filters, version])

  const loaded = [...(pinned?.data ?? []), ...(page?.data ?? [])]
  const extra = found.filter((f) => !loaded.some((c) => c.id === f.id))
  const { previewOf, forget } = usePreviews([...loaded, ...extra])
  const needle = term.toLowerCase()
  const matches = (c: Conversation) => {
    if (needle === '') return true
    const preview = previewOf(c)
    const text = preview && preview !== 'failed' ? preview.text : ''
    return [c.contact_id, c.group_id, text].some((s) => s?.toLowerCase().includes(needle))
  }
  const group = (pinnedOnes: boolean) =>
    [...(pinnedOnes ? (pinned?.data ?? []) : (page?.data ?? [])), ...extra.filter((c) => c.is_pinned === pinnedOnes)].filter(matches).sort(byActivity)
  const pinnedShown = group(true)
  const othersShown = group(false)

  const setFilter = (name: keyof Filters) => (e: Event) => {
    setCursor({})
    setFilters({ ...filters, [name]: (e.currentTarget as HTMLSelectElement).value as Filter })
  }
  const create = async (e: Event) => {
    e.preventDefault()
    setCreateError(null)
    try {
      const c = await call(client.POST('/v1/conversations', { body: { contact_id: contact.trim() } }))
      setContact('')
      setVersion((v) => v + 1)
      navigate(`/conversations/${c.id}`)
    } catch (err) {
      setCreateError(err)
    }
  }
  const changed = () => {
    if (openId) forget(openId)
    setVersion((v) => v + 1)
  }
  const filterSelect = (name: keyof Filters, label: string) => (
    <select aria-label={label} value={filters[name]} onChange={setFilter(name)}>
      <option value="">{label}: any</option>
      <option value="true">{label} only</option>
      <option value="false">not {label.toLowerCase()}</option>
    </select>
  )
  const list = (items: Conversation[]) => (
    <ul class="conv-list">
      {items.map((c) => (
        <Row key={c.id} c={c} preview={previewOf(c)} open={c.id === openId} />
      ))}
    </ul>
  )
  const loading = (pinned === null || page === null) && !error
  return (
    <section class={openId ? 'conversations-page has-open' : 'conversations-page'}>
      <header class="page-header">
        <h1>Conversations</h1>
      </header>
      <div class="conversations">
        <div class="conv-side">
          <div class="toolbar">
            <input
              type="search"
              aria-label="Search conversations"
              placeholder="Search by contact, group or message"
              value={search}
              onInput={(e) => setSearch(e.currentTarget.value)}
            />
            {filterSelect('muted', 'Muted')}
            {filterSelect('archived', 'Archived')}
          </div>
          <ErrorBox error={error} />
          {loading ? <Loading what="conversations" /> : null}
          {!loading && !error && pinnedShown.length === 0 && othersShown.length === 0 ? (
            <Empty>{term === '' ? 'No conversation matches these filters.' : `No conversation here matches “${term}”.`}</Empty>
          ) : null}
          {pinnedShown.length > 0 ? (
            <>
              <h2 class="conv-group">Pinned</h2>
              {list(pinnedShown)}
              {pinned?.has_more ? <p class="muted small-print">The {PINNED_LIMIT} most recently active pinned conversations are shown.</p> : null}
            </>
          ) : null}
          {othersShown.length > 0 ? (
            <>
              {pinnedShown.length > 0 ? <h2 class="conv-group">Others</h2> : null}
              {list(othersShown)}
            </>
          ) : null}
          {page && page.data.length > 0 && (page.has_more || cursor.starting_after || cursor.ending_before) ? (
            <nav class="pager" aria-label="More conversations">
              <button
                disabled={!cursor.starting_after && !(cursor.ending_before && page.has_more)}
                onClick={() => setCursor({ ending_before: page.data[0]!.id })}
              >
                ← Newer
              </button>
              <button
                disabled={!(page.has_more && !cursor.ending_before) && !cursor.ending_before}
                onClick={() => setCursor({ starting_after: page.data[page.data.length - 1]!.id })}
              >
                Older →
              </button>
            </nav>
          ) : null}
          {canWrite ? (
            <form class="card new-conversation" onSubmit={asyncHandler(create)}>
              <Field label="New conversation with contact" name="contact_id" error={createError}>
                <input name="contact_id" value={contact} onInput={(e) => setContact(e.currentTarget.value)} placeholder="c_42" />
              </Field>
              <ErrorBox error={generalError(createError, ['contact_id'])} />
              <button type="submit" disabled={contact.trim() === ''}>
                Start
              </button>
            </form>
          ) : null}
        </div>
        <div class="conv-thread">
          {openId ? (
            <>
              <A to="/conversations" class="conv-back">
                ← Back to conversations
              </A>
              <Thread id={openId} canWrite={canWrite} onChanged={changed} />
            </>
          ) : (
            <Empty>Pick a conversation to read it.</Empty>
          )}
        </div>
      </div>
    </section>
  )
}
