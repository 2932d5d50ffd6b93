import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { call, client, onSignedOut, type Me } from './api'
import { navigate, useRoute } from './router'
import { asyncHandler, A, ErrorBox, Field, Loading, generalError } from './ui'
import { LinksPage } from './pages/links'
import { LinkDetailPage } from './pages/link-detail'
import { DomainsPage } from './pages/domains'
import { TokensPage } from './pages/tokens'
import { ConversationsPage } from './pages/conversations'
import './styles.css'

// The server names its bootstrap workspace in the page: the first start printed a token for it.
const BOOTSTRAP_WORKSPACE = document.querySelector<HTMLMetaElement>('meta[name="linkline-bootstrap-workspace"]')?.content || 'default'
const TOKEN_HINT = `The token the first start printed, or a new one: npx linkline tokens create --owner ${BOOTSTRAP_WORKSPACE}`

function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [token, setToken] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const res = await call(client.POST('/v1/sessions', { body: { token: token.trim() } }), { quietUnauthorized: true })
      // The token leaves the page's memory: only the HttpOnly cookie stands for it from now on.
      setToken('')
      onSignedIn(res.data)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="signin">
      <form class="card" onSubmit={asyncHandler(submit)}>
        <h1>
          <span class="logo" aria-hidden="true">
            L
          </span>{' '}
          Linkline
        </h1>
        <p>Sign in with an API token. It is exchanged for a session and not kept in this browser.</p>
        <Field label="API token" name="token" error={error} hint={TOKEN_HINT}>
          <input name="token" type="password" autocomplete="off" placeholder="ll_…" value={token} onInput={(e) => setToken(e.currentTarget.value)} required />
        </Field>
        <ErrorBox error={generalError(error, ['token'])} />
        <button type="submit" class="primary" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="muted small-print">
          API reference: <a href="/docs/">/docs</a>
        </p>
      </form>
    </main>
  )
}

const NAV = [
  { to: '/', label: 'Links', scope: 'links:read' },
  { to: '/conversations', label: 'Conversations', scope: 'conversations:read' },
  { to: '/domains', label: 'Domains', scope: 'domains:read' },
  { to: '/tokens', label: 'Tokens', scope: 'tokens:write' },
]

function Shell({ me, onSignOut }: { me: Me; onSignOut: () => void }) {
  const { path } = useRoute()
  const can = (scope: string) => me.scopes.includes(scope)
  const section = path === '/' || path.startsWith('/links') ? '/' : `/${path.split('/')[1]}`
  let page
  const link = /^\/links\/([^/]+)$/.exec(path)
  const conversation = /^\/conversations(?:\/([^/]+))?$/.exec(path)
  if (path === '/') page = <LinksPage canWrite={can('links:write')} />
  else if (link) page = <LinkDetailPage id={decodeURIComponent(link[1]!)} canWrite={can('links:write')} />
  else if (conversation)
    page = <ConversationsPage openId={conversation[1] ? decodeURIComponent(conversation[1]) : null} canWrite={can('conversations:write')} />
  else if (path === '/domains') page = <DomainsPage canWrite={can('domains:write')} />
  else if (path === '/tokens') page = <TokensPage me={me} />
  else
    page = (
      <section>
        <h1>Page not found</h1>
        <p>
          <A to="/">Back to the links</A>
        </p>
      </section>
    )
  return (
    <div class="shell">
      <header class="topbar">
        <A to="/" class="brand">
          <span class="logo" aria-hidden="true">
            L
          </span>{' '}
          Linkline
        </A>
        <nav>
          {NAV.filter((n) => can(n.scope)).map((n) => (
            <A key={n.to} to={n.to} class={section === n.to ? 'active' : ''}>
              {n.label}
            </A>
          ))}
          <a href="/docs/" target="_blank" rel="noopener">
            API docs
          </a>
        </nav>
        <div class="who">
          <span title={me.scopes.join(' ')} data-testid="who">
            Owner <strong>{me.ownerId}</strong> · {me.scopes.length} scopes
          </span>
          <button class="small" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main>{page}</main>
    </div>
  )
}

function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    call(client.GET('/v1/sessions/current'), { quietUnauthorized: true }).then(
      (r) => setMe(r.data),
      (e: { status?: number }) => (e.status === 401 ? setMe(null) : setError(e)),
    )
    return onSignedOut(() => setMe(null))
  }, [])
  const signOut = async () => {
    try {
      await call(client.DELETE('/v1/sessions/current'), { quietUnauthorized: true })
    } catch {
      // Already ended: signed out either way.
    }
    setMe(null)
    navigate('/')
  }
  if (error)
    return (
      <main class="signin">
        <ErrorBox error={error} />
      </main>
    )
  if (me === undefined)
    return (
      <main class="signin">
        <Loading what="your session" />
      </main>
    )
  if (me === null) return <SignIn onSignedIn={setMe} />
  return <Shell me={me} onSignOut={asyncHandler(signOut)} />
}

render(<App />, document.getElementById('app')!)
