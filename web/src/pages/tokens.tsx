import { useEffect, useState } from 'preact/hooks'
import { call, client, type operations, type Token } from '../api'
import { asyncHandler, confirmed, CopyButton, Empty, ErrorBox, Field, Loading, formatDate, generalError } from '../ui'

type NewToken = NonNullable<operations['postTokens']['requestBody']>['content']['application/json']
/** A session's scopes are API scopes: the server gave them, the server checks them again. */
const asScopes = (scopes: string[]) => scopes as NonNullable<NewToken['scopes']>

/** The lifetimes offered for a new token, in days; 0: it never expires. */
const LIFETIMES = [
  [0, 'Never'],
  [7, '7 days'],
  [30, '30 days'],
  [90, '90 days'],
  [365, 'A year'],
] as const
const DAY_MS = 24 * 60 * 60 * 1000

export function TokensPage({ scopes: mine }: { scopes: string[] }) {
  const [tokens, setTokens] = useState<Token[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [name, setName] = useState('')
  const [scopes, setScopes] = useState<Set<string>>(new Set(mine))
  const [lifetime, setLifetime] = useState(90)
  const [created, setCreated] = useState<Token | null>(null)
  const [createError, setCreateError] = useState<unknown>(null)
  const load = () => call(client.GET('/v1/tokens')).then((r) => setTokens(r.data), setError)
  useEffect(() => void load(), [])

  const create = async (e: Event) => {
    e.preventDefault()
    setCreateError(null)
    try {
      const res = await call(
        client.POST('/v1/tokens', {
          body: {
            name: name.trim() === '' ? null : name.trim(),
            scopes: asScopes(mine.filter((s) => scopes.has(s))),
            expiresAt: lifetime === 0 ? null : new Date(Date.now() + lifetime * DAY_MS).toISOString(),
          },
        }),
      )
      setCreated(res.data)
      setName('')
      await load()
    } catch (err) {
      setCreateError(err)
    }
  }
  const revoke = async (token: Token) => {
    const warning = token.current ? ' This is the token of your own session: you will be signed out.' : ''
    if (!confirmed(`Revoke ${token.name ?? token.prefix}? Programs using it stop working at once.${warning}`)) return
    try {
      await call(client.DELETE('/v1/tokens/{id}', { params: { path: { id: token.id } } }))
      await load()
    } catch (err) {
      setError(err)
    }
  }
  const toggle = (scope: string) => {
    const next = new Set(scopes)
    if (next.has(scope)) next.delete(scope)
    else next.add(scope)
    setScopes(next)
  }
  return (
    <section>
      <header class="page-header">
        <h1>API tokens</h1>
      </header>
      <form class="card" onSubmit={asyncHandler(create)}>
        <h2>Create a token</h2>
        <Field label="Name" name="name" error={createError} hint="What it is for, e.g. “CI” or “reporting”">
          <input name="name" value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="reporting" />
        </Field>
        <Field label="Scopes" name="scopes" error={createError} hint="At most the scopes you have yourself">
          <span class="checks">
            {mine.map((s) => (
              <label key={s}>
                <input type="checkbox" name="scope" value={s} checked={scopes.has(s)} onChange={() => toggle(s)} /> {s}
              </label>
            ))}
          </span>
        </Field>
        <Field label="Expires" name="expiresAt" error={createError} hint="A token that expires cannot be forgotten in a script for years">
          <select name="expiresAt" value={lifetime} onChange={(e) => setLifetime(Number(e.currentTarget.value))}>
            {LIFETIMES.map(([days, label]) => (
              <option key={days} value={days}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <ErrorBox error={generalError(createError, ['name', 'scopes', 'expiresAt'])} />
        <button type="submit" class="primary">
          Create token
        </button>
        {created?.token ? (
          <div class="notice" role="status" data-testid="new-token">
            <strong>Copy this token now: it is shown only once.</strong>
            <code class="secret">{created.token}</code>
            <CopyButton text={created.token} label="Copy token" />{' '}
            <button type="button" class="small" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        ) : null}
      </form>
      <ErrorBox error={error} />
      {tokens === null && !error ? <Loading what="tokens" /> : null}
      {tokens?.length === 0 ? <Empty>No active tokens.</Empty> : null}
      {tokens && tokens.length > 0 ? (
        <div class="table-wrap">
          <table class="cards tokens">
            <thead>
              <tr>
                <th>Name</th>
                <th>Prefix</th>
                <th>Scopes</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr key={t.id} data-token={t.id}>
                  <td>
                    {t.name ?? <span class="muted">unnamed</span>} {t.current ? <span class="tag">this session</span> : null}
                  </td>
                  <td data-label="Prefix">
                    <code>{t.prefix}…</code>
                  </td>
                  <td class="small-print" data-label="Scopes">
                    {t.scopes.join(', ')}
                  </td>
                  <td class="nowrap" data-label="Created">
                    {formatDate(t.createdAt)}
                  </td>
                  <td class="nowrap" data-label="Last used">
                    {t.lastUsedAt ? formatDate(t.lastUsedAt) : <span class="muted">never</span>}
                  </td>
                  <td class="nowrap" data-label="Expires">
                    {t.expiresAt ? formatDate(t.expiresAt) : <span class="muted">never</span>}
                  </td>
                  <td class="row-actions">
                    <button class="small danger" onClick={asyncHandler(() => revoke(t))}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  )
}
