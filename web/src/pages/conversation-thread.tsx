import { useEffect, useRef, useState } from 'preact/hooks'
import { call, client, type Conversation, type Message, type operations } from '../api'
import { asyncHandler, A, confirmed, Empty, ErrorBox, Field, Loading, formatDate, generalError } from '../ui'

type MessagePage = operations['getConversationsByIdMessages']['responses'][200]['content']['application/json']

export const nameOf = (c: Conversation) => (c.contact_id ? `Contact ${c.contact_id}` : `Group ${c.group_id}`)

/**
 * One conversation: its messages, newest at the bottom, and a composer for what the person writing
 * sends. Opening it marks it read; its heading takes the focus.
 */
export function Thread({ id, canWrite, onChanged }: { id: string; canWrite: boolean; onChanged: () => void }) {
  const [conversation, setConversation] = useState<Conversation | null>(null)
  const [messages, setMessages] = useState<MessagePage | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [text, setText] = useState('')
  const [sendError, setSendError] = useState<unknown>(null)
  const heading = useRef<HTMLHeadingElement>(null)
  /** The conversation whose heading took the focus: once per opening, not on each update. */
  const focused = useRef<string | null>(null)

  const params = { path: { id } }
  // Opening it in the dashboard is what `open` records (last_opened_at): it is read.
  const markOpened = () => call(canWrite ? client.POST('/v1/conversations/{id}/open', { params, body: {} }) : client.GET('/v1/conversations/{id}', { params }))
  const loadMessages = (before?: string) =>
    call(client.GET('/v1/conversations/{id}/messages', { params: { path: { id }, query: { limit: 50, starting_after: before } } })).then(
      (page) => setMessages((old) => (before && old ? { has_more: page.has_more, data: [...old.data, ...page.data] } : page)),
      setError,
    )
  useEffect(() => {
    setConversation(null)
    setMessages(null)
    setError(null)
    setSendError(null)
    markOpened().then((c) => {
      setConversation(c)
      onChanged()
    }, setError)
    void loadMessages()
  }, [id])
  useEffect(() => {
    if (conversation?.id !== id || focused.current === id) return
    focused.current = id
    heading.current?.focus()
  }, [conversation])

  const update = async (body: operations['patchConversationsById']['requestBody']['content']['application/json']) => {
    try {
      setConversation(await call(client.PATCH('/v1/conversations/{id}', { params, body })))
      onChanged()
    } catch (e) {
      setError(e)
    }
  }
  const send = async (e: Event) => {
    e.preventDefault()
    setSendError(null)
    try {
      // The person writing here sends; `inbound` messages come from integrations, through the API.
      await call(client.POST('/v1/conversations/{id}/messages', { params, body: { text } }))
      setText('')
      // Open again: a message written here is no unread message.
      setConversation(await markOpened())
      await loadMessages()
      onChanged()
    } catch (err) {
      setSendError(err)
    }
  }
  /** Ctrl+Enter (⌘+Enter) sends; Enter alone starts a new line. */
  const sendOnCtrlEnter = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) (e.currentTarget as HTMLTextAreaElement).form?.requestSubmit()
  }
  const remove = async (m: Message) => {
    if (!confirmed('Delete this message for good?')) return
    try {
      await call(client.DELETE('/v1/conversations/{id}/messages/{message_id}', { params: { path: { id, message_id: m.id } } }))
      await loadMessages()
      setConversation(await call(client.GET('/v1/conversations/{id}', { params })))
      onChanged()
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
        <h2 ref={heading} tabIndex={-1} id="conversation-title">
          {nameOf(c)}
        </h2>
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
        <form class="compose" onSubmit={asyncHandler(send)} aria-labelledby="conversation-title">
          <Field label="Message" name="text" error={sendError} hint="Ctrl+Enter sends">
            <textarea
              name="text"
              rows={2}
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
              onKeyDown={sendOnCtrlEnter}
              placeholder="Write a message"
            />
          </Field>
          <button type="submit" class="primary" disabled={text.trim() === ''}>
            Send
          </button>
        </form>
      ) : null}
      <ErrorBox error={generalError(sendError, ['text'])} />
    </div>
  )
}
