import { useState } from 'preact/hooks'
import { ApiError, call, client } from '../api'
import { BOOTSTRAP_WORKSPACE, SIGN_IN, SSO_START } from '../page-config'
import { asyncHandler, ErrorBox, Field, generalError, usePageTitle } from '../ui'

const TOKEN_HINT = `The token the first start printed, or a new one: npx linkline tokens create --owner ${BOOTSTRAP_WORKSPACE}`

/** A refused sign-in in a person's words (a 401 elsewhere means the session is gone). */
const signInError = (e: unknown) => (e instanceof ApiError && e.status === 401 ? new ApiError(401, 'not_signed_in', e.message, e.param) : e)

export const Brand = () => (
  <h1 class="brand-title">
    <span class="logo" aria-hidden="true">
      L
    </span>{' '}
    Linkline
  </h1>
)

/** Email and password: how people sign in (POST /v1/sessions), unless the server turned it off. */
export function PasswordForm({ onSignedIn, submitLabel = 'Sign in' }: { onSignedIn: () => Promise<void>; submitLabel?: string }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      await call(client.POST('/v1/sessions', { body: { email: email.trim(), password } }), { quietUnauthorized: true })
      setPassword('')
      await onSignedIn()
    } catch (e) {
      setError(signInError(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <form onSubmit={asyncHandler(submit)}>
      <Field label="Email" name="email" error={error}>
        <input name="email" type="email" autocomplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />
      </Field>
      <Field label="Password" name="password" error={error}>
        <input name="password" type="password" autocomplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} required />
      </Field>
      <ErrorBox error={generalError(error, ['email', 'password'])} />
      <button type="submit" class="primary block" disabled={busy}>
        {busy ? 'Signing in…' : submitLabel}
      </button>
    </form>
  )
}

/** An API token exchanged for a session: the operators' way in, and the only one before any person exists. */
function TokenForm({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const [token, setToken] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      await call(client.POST('/v1/sessions', { body: { token: token.trim() } }), { quietUnauthorized: true })
      // The token leaves the page's memory: only the HttpOnly cookie stands for it from now on.
      setToken('')
      await onSignedIn()
    } catch (e) {
      setError(signInError(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <form onSubmit={asyncHandler(submit)}>
      <Field label="API token" name="token" error={error} hint={TOKEN_HINT}>
        <input name="token" type="password" autocomplete="off" placeholder="ll_…" value={token} onInput={(e) => setToken(e.currentTarget.value)} required />
      </Field>
      <ErrorBox error={generalError(error, ['token'])} />
      <button type="submit" class="block" disabled={busy || token.trim() === ''}>
        {busy ? 'Signing in…' : 'Sign in with token'}
      </button>
    </form>
  )
}

export function SsoButton() {
  return SIGN_IN.ssoName === null ? null : (
    // A plain link: the identity provider's pages are a full-page navigation away, and back.
    <a class="button block" href={SSO_START}>
      Sign in with {SIGN_IN.ssoName}
    </a>
  )
}

/** What a page that sent someone here wants them to know (a fixed list: the URL names one, it does not write it). */
const NOTICES: Record<string, string> = {
  'password-set': 'Your new password is set. Sign in with it.',
  'signed-out-everywhere': 'You are signed out, here and on every other device.',
}

export function SignInPage({ onSignedIn, query }: { onSignedIn: () => Promise<void>; query: URLSearchParams }) {
  const notice = NOTICES[query.get('notice') ?? '']
  // The single sign-on callback's refusal, in its words; shown as text, never as markup.
  const ssoError = query.get('sso_error')
  const noOtherWay = !SIGN_IN.password && SIGN_IN.ssoName === null
  usePageTitle('Sign in')
  return (
    <main class="signin">
      <div class="card">
        <Brand />
        <p class="muted">Sign in to your workspace.</p>
        {notice ? (
          <div class="notice" role="status">
            {notice}
          </div>
        ) : null}
        {ssoError ? (
          <div class="error" role="alert" data-testid="sso-error">
            Single sign-on did not sign you in: {ssoError.slice(0, 300)}
          </div>
        ) : null}
        {SIGN_IN.password ? <PasswordForm onSignedIn={onSignedIn} /> : null}
        {SIGN_IN.password && SIGN_IN.ssoName !== null ? (
          <p class="or">
            <span>or</span>
          </p>
        ) : null}
        <SsoButton />
        <details class="token-sign-in" open={noOtherWay}>
          <summary>Use an API token</summary>
          <p class="small-print muted">For operators: a token of the workspace, from the first start or the command line.</p>
          <TokenForm onSignedIn={onSignedIn} />
        </details>
        <p class="muted small-print">
          API reference: <a href="/docs/">/docs</a>
        </p>
      </div>
    </main>
  )
}
