import { useEffect, useState } from 'preact/hooks'
import { call, client, type Conversation, type Message, type operations } from '../api'
import { navigate } from '../router'
import { asyncHandler, A, confirmed, Empty, ErrorBox, Field, Loading, formatDate, generalError } from '../ui'

type Page = operations['getConversations']['responses'][200]['content']['application/json']
type MessagePage = operations['getConversationsByIdMessages']['responses'][200]['content']['application/json']
type Filter = '' | 'true' | 'false'
/** A filter's select as the query's boolean: '' filters nothing. */
const flag = (filter: Filter) => (filter === '' ? undefined : filter === 'true')
const nameOf = (c: Conversation) => (c.contact_id ? `Contact ${c.contact_id}` : `Group ${c.group_id}`)

function Thread({ id, canWrite, onChanged }: { id: string; canWrite: boolean; onChanged: () => void }) {
  const [conversation, setConversation] = useState<Conversation | null>(null)
  const [messages, setMessages] = useState<MessagePage | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [text, setText] = useState('')
  const [direction, setDirection] = useState<'outbound' | 'inbound'>('outbound')
  const [sendError, setSendError] = useState<unknown>(null)

  const loadMessages = (before?: string) =>
    call(client.GET('/v1/conversations/{id}/messages', { params: { path: { id }, query: { limit: 50, starting_after: before } } })).then(
      (page) => setMessages((old) => (before && old ? { has_more: page.has_more, data: [...old.data, ...page.data] } : page)),
      setError,
    )
  useEffect(() => {
    setConversation(null)
    setMessages(null)
    setError(null)
    // Opening it in the dashboard is what `open` records (last_opened_at).
    const params = { path: { id } }
    const opening = call(canWrite ? client.POST('/v1/conversations/{id}/open', { params, body: {} }) : client.GET('/v1/conversations/{id}', { params }))
    opening.then((c) => {
      setConversation(c)
      onChanged()
    }, setError)
    void loadMessages()
  }, [id])

  const update = async (body: operations['patchConversationsById']['requestBody']['content']['application/json']) => {
    try {
      setConversation(await call(client.PATCH('/v1/conversations/{id}', { params: { path: { id } }, body })))
      onChanged()
    } catch (e) {
      setError(e)
    }
  }
  const send = async (e: Event) => {
    e.preventDefault()
    setSendError(null)
    try {
      await call(client.POST('/v1/conversations/{id}/messages', { params: { path: { id } }, body: { text, direction } }))
      setText('')
      await loadMessages()
      onChanged()
    } catch (err) {
      setSendError(err)
    }
  }
  const remove = async (m: Message) => {
    if (!confirmed('Delete this message for good?')) return
    try {
      await call(client.DELETE('/v1/conversations/{id}/messages/{message_id}', { params: { path: { id, message_id: m.id } } }))
      await loadMessages()
      setConversation(await call(client.GET('/v1/conversations/{id}', { params: { path: { id } } })))
    } catch (err) {
      setError(err)
    }
  }

  if (error && !conversation)
    return (
      <div class="card">
        <ErrorBox error={error} />
      </div>
    )
  if (!conversation)
    return (
      <div class="card">
        <Loading what="the conversation" />
      </div>
    )
  const c = conversation
  return (
    <div class="card" data-conversation={c.id}>
      <div class="page-header">
        <h2>{nameOf(c)}</h2>
        {canWrite ? (
          <div class="actions">
            <button class={c.is_pinned ? 'small active' : 'small'} onClick={asyncHandler(() => update({ is_pinned: !c.is_pinned }))}>
              {c.is_pinned ? 'Unpin' : 'Pin'}
            </button>
            <button class={c.is_muted ? 'small active' : 'small'} onClick={asyncHandler(() => update({ is_muted: !c.is_muted }))}>
              {c.is_muted ? 'Unmute' : 'Mute'}
            </button>
            {c.archived_at === null ? (
              <button class="small" onClick={asyncHandler(() => update({ archived_at: Math.floor(Date.now() / 1000) }))}>
                Archive
              </button>
            ) : (
              <button class="small active" onClick={asyncHandler(() => update({ archived_at: null }))}>
                Restore
              </button>
            )}
          </div>
        ) : null}
      </div>
      <p class="muted small-print">
        Created {formatDate(c.created_at)} · last active {formatDate(c.last_active_at)}
        {c.link_id ? (
          <>
            {' '}
            · from <A to={`/links/${c.link_id}`}>its link</A>
          </>
        ) : null}
        {c.archived_at !== null ? <> · archived {formatDate(c.archived_at)}</> : null}
      </p>
      <ErrorBox error={error} />
      {messages === null ? (
        <Loading what="messages" />
      ) : messages.data.length === 0 ? (
        <Empty>No messages yet.</Empty>
      ) : (
        <ul class="messages">
          {messages.data.map((m) => (
            <li key={m.id} class={`message ${m.direction}${c.pinned_message_id === m.id ? ' pinned' : ''}`} data-message={m.id}>
              <div>{m.text}</div>
              <div class="meta">
                <span>
                  {m.direction === 'outbound' ? 'sent' : 'received'} {formatDate(m.created_at)}
                </span>
                {c.pinned_message_id === m.id ? <strong>pinned</strong> : null}
                {canWrite ? (
                  <>
                    <button class="small" onClick={asyncHandler(() => update({ pinned_message_id: c.pinned_message_id === m.id ? null : m.id }))}>
                      {c.pinned_message_id === m.id ? 'Unpin' : 'Pin'}
                    </button>
                    <button class="small danger" onClick={asyncHandler(() => remove(m))}>
                      Delete
                    </button>
                  </>
                ) : null}
              </div>
            </li>
          ))}
          {messages.has_more ? (
            <li>
              <button class="small" onClick={asyncHandler(() => loadMessages(messages.data[messages.data.length - 1]?.id))}>
                Older messages
              </button>
            </li>
          ) : null}
        </ul>
      )}
      {canWrite ? (
        <form class="compose" onSubmit={asyncHandler(send)}>
          <Field label="Message" name="text" error={sendError}>
            <textarea name="text" rows={2} value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder="Write a message" />
          </Field>
          <Field label="Direction" name="direction" error={sendError}>
            <select value={direction} onChange={(e) => setDirection(e.currentTarget.value as 'outbound' | 'inbound')}>
              <option value="outbound">Outbound</option>
              <option value="inbound">Inbound (record a reply)</option>
            </select>
          </Field>
          <button type="submit" class="primary">
            Send
          </button>
        </form>
      ) : null}
      <ErrorBox error={generalError(sendError, ['text', 'direction'])} />
    </div>
  )
}

export function ConversationsPage({ openId, canWrite }: { openId: string | null; canWrite: boolean }) {
  const [filters, setFilters] = useState<{ pinned: Filter; muted: Filter; archived: Filter }>({ pinned: '', muted: '', archived: 'false' })
  const [cursor, setCursor] = useState<{ starting_after?: string; ending_before?: string }>({})
  const [page, setPage] = useState<Page | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [version, setVersion] = useState(0)
  const [contact, setContact] = useState('')
  const [createError, setCreateError] = useState<unknown>(null)

  useEffect(() => {
    let live = true
    const query = { limit: 20, pinned: flag(filters.pinned), muted: flag(filters.muted), archived: flag(filters.archived), ...cursor }
    call(client.GET('/v1/conversations', { params: { query } })).then(
      (r) => live && (setPage(r), setError(null)),
      (e) => live && setError(e),
    )
    return () => {
      live = false
    }
  }, [filters, cursor, version])

  const setFilter = (name: 'pinned' | 'muted' | 'archived') => (e: Event) => {
    setCursor({})
    setFilters({ ...filters, [name]: (e.currentTarget as HTMLSelectElement).value as Filter })
  }
  const create = async (e: Event) => {
    e.preventDefault()
    setCreateError(null)
    try {
      const c = await call(client.POST('/v1/conversations', { body: { contact_id: contact.trim() } }))
      setContact('')
      setVersion(version + 1)
      navigate(`/conversations/${c.id}`)
    } catch (err) {
      setCreateError(err)
    }
  }
  const filterSelect = (name: 'pinned' | 'muted' | 'archived', label: string) => (
    <select aria-label={label} value={filters[name]} onChange={setFilter(name)}>
      <option value="">{label}: any</option>
      <option value="true">{label} only</option>
      <option value="false">not {label.toLowerCase()}</option>
    </select>
  )
  return (
    <section>
      <header class="page-header">
        <h1>Conversations</h1>
      </header>
      <div class="toolbar">
        {filterSelect('pinned', 'Pinned')}
        {filterSelect('muted', 'Muted')}
        {filterSelect('archived', 'Archived')}
      </div>
      <ErrorBox error={error} />
      <div class="conversations">
        <div>
          {page === null && !error ? <Loading what="conversations" /> : null}
          {page?.data.length === 0 ? <Empty>No conversation matches these filters.</Empty> : null}
          {page && page.data.length > 0 ? (
            <ul class="conv-list">
              {page.data.map((c) => (
                <li key={c.id}>
                  <A to={`/conversations/${c.id}`} class={c.id === openId ? 'active' : ''}>
                    <strong>{nameOf(c)}</strong>
                    <div class="flags">
                      {formatDate(c.last_active_at ?? c.created_at)}
                      {c.is_pinned ? ' · pinned' : ''}
                      {c.is_muted ? ' · muted' : ''}
                      {c.archived_at !== null ? ' · archived' : ''}
                      {c.last_opened_at === null || (c.last_active_at !== null && c.last_active_at > c.last_opened_at) ? ' · new' : ''}
                    </div>
                  </A>
                </li>
              ))}
            </ul>
          ) : null}
          {page && page.data.length > 0 && (page.has_more || cursor.starting_after || cursor.ending_before) ? (
            <nav class="pager">
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
            <form class="card" onSubmit={asyncHandler(create)}>
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
        {openId ? <Thread id={openId} canWrite={canWrite} onChanged={() => setVersion((v) => v + 1)} /> : <Empty>Pick a conversation to read it.</Empty>}
      </div>
    </section>
  )
}
