// The pages one-time links open: the first owner's setup link, an invitation, a password reset.
// Each secret works once; a used, revoked or expired one is 410 `gone`, and the page says what to do.
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { ApiError, call, client, type Me } from '../api'
import { BOOTSTRAP_WORKSPACE, SIGN_IN } from '../page-config'
import { A, asyncHandler, ErrorBox, Field, generalError, PASSWORD_HINT, PASSWORD_MIN_LENGTH, usePageTitle } from '../ui'
import { Brand, PasswordForm, SsoButton } from './sign-in'

type Kind = 'setup' | 'invitation' | 'reset'

const ASK_FOR_A_NEW_ONE: Record<Kind, string> = {
  setup: `An operator can make the first owner from a shell instead: npx linkline users create --email you@example.com --workspace ${BOOTSTRAP_WORKSPACE} --role owner`,
  invitation: 'Ask whoever invited you to send a new invitation.',
  reset: 'Ask an admin of your workspace for a new reset link.',
}

function Frame({ title, children }: { title: string; children: ComponentChildren }) {
  usePageTitle(title)
  return (
    <main class="signin">
      <div class="card">
        <Brand />
        <h2>{title}</h2>
        {children}
      </div>
    </main>
  )
}

export function Gone({ kind }: { kind: Kind }) {
  return (
    <Frame title="This link can no longer be used">
      <div data-testid="link-gone">
        <p>It was already used, or it has expired or been withdrawn. Each of these links works only once, for a limited time.</p>
        <p>{ASK_FOR_A_NEW_ONE[kind]}</p>
        <p>
          <A to="/">Go to the sign-in page</A>
        </p>
      </div>
    </Frame>
  )
}

/** Runs a one-time link's request: 410 turns the page into Gone, other errors stay by their fields. */
function useOneTime(submit: () => Promise<void>) {
  const [error, setError] = useState<unknown>(null)
  const [gone, setGone] = useState(false)
  const [busy, setBusy] = useState(false)
  const run = async (event?: Event) => {
    event?.preventDefault()
    setBusy(true)
    setError(null)
    try {
      await submit()
    } catch (e) {
      if (e instanceof ApiError && e.status === 410) setGone(true)
      else setError(e)
    } finally {
      setBusy(false)
    }
  }
  return { error, gone, busy, run: asyncHandler(run) }
}

function NewPassword({ value, onInput, error, label = 'Password' }: { value: string; onInput: (v: string) => void; error: unknown; label?: string }) {
  return (
    <Field label={label} name="password" error={error} hint={PASSWORD_HINT}>
      <input
        name="password"
        type="password"
        autocomplete="new-password"
        minLength={PASSWORD_MIN_LENGTH}
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
        required
      />
    </Field>
  )
}

function NameField({ value, onInput, error }: { value: string; onInput: (v: string) => void; error: unknown }) {
  return (
    <Field label="Your name" name="name" error={error} hint="As your colleagues will see it">
      <input name="name" autocomplete="name" value={value} onInput={(e) => onInput(e.currentTarget.value)} required />
    </Field>
  )
}

/** `/app/setup?code=…`: the first start's link that makes the first owner of the bootstrap workspace. */
export function SetupPage({ code, onSignedIn }: { code: string; onSignedIn: () => Promise<void> }) {
  const [email, setEmail] = useState('')
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const { error, gone, busy, run } = useOneTime(async () => {
    await call(client.POST('/v1/setup', { body: { code, email: email.trim(), name: name.trim(), password } }))
    await onSignedIn()
  })
  if (gone || code === '') return <Gone kind="setup" />
  return (
    <Frame title="Set up the first owner">
      <p class="muted">You become the owner of this Linkline: you can then invite the rest of your team.</p>
      <form onSubmit={run}>
        <Field label="Email" name="email" error={error}>
          <input name="email" type="email" autocomplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />
        </Field>
        <NameField value={name} onInput={setName} error={error} />
        <NewPassword value={password} onInput={setPassword} error={error} />
        <ErrorBox error={generalError(error, ['email', 'name', 'password'])} />
        <button type="submit" class="primary block" disabled={busy}>
          {busy ? 'Creating…' : 'Create my account'}
        </button>
      </form>
    </Frame>
  )
}

/**
 * `/app/invite/<secret>`: a new person sets a name and password; someone already signed in joins with
 * their account; someone with an account who is not signed in signs in first, here.
 */
export function InvitePage(props: { secret: string; me: Me | null; onSignedIn: () => Promise<void>; onSignOut: () => Promise<void> }) {
  const { secret, me, onSignedIn } = props
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const [signingIn, setSigningIn] = useState(false)
  const signedIn = me?.user ?? null
  const { error, gone, busy, run } = useOneTime(async () => {
    const body = signedIn ? { secret } : { secret, name: name.trim(), password }
    await call(client.POST('/v1/invitations/accept', { body }))
    await onSignedIn()
  })
  if (gone) return <Gone kind="invitation" />
  if (signedIn)
    return (
      <Frame title="Join a workspace">
        <p>
          You are signed in as <strong>{signedIn.name || signedIn.email}</strong> ({signedIn.email}). Join the workspace you were invited to with this account?
        </p>
        <ErrorBox error={error} />
        <div class="actions stacked">
          <button type="button" class="primary block" onClick={run} disabled={busy}>
            {busy ? 'Joining…' : 'Join'}
          </button>
          <button type="button" class="block" onClick={asyncHandler(props.onSignOut)}>
            Not you? Sign out
          </button>
        </div>
      </Frame>
    )
  if (signingIn)
    return (
      <Frame title="Sign in to join">
        <p class="muted">Sign in with your account; then join the workspace you were invited to.</p>
        {SIGN_IN.password ? <PasswordForm onSignedIn={onSignedIn} /> : <SsoButton />}
        <p>
          <button type="button" class="link" onClick={() => setSigningIn(false)}>
            I am new here: create my account
          </button>
        </p>
      </Frame>
    )
  return (
    <Frame title="You are invited">
      <p class="muted">You were invited to a Linkline workspace. Choose your name and a password to join it.</p>
      <form onSubmit={run}>
        <NameField value={name} onInput={setName} error={error} />
        <NewPassword value={password} onInput={setPassword} error={error} />
        <ErrorBox error={generalError(error, ['name', 'password'])} />
        <button type="submit" class="primary block" disabled={busy}>
          {busy ? 'Joining…' : 'Join the workspace'}
        </button>
      </form>
      <p>
        <button type="button" class="link" onClick={() => setSigningIn(true)}>
          I already have an account: sign in to join
        </button>
      </p>
    </Frame>
  )
}

/** `/app/reset/<secret>`: a new password; every session of that person ends, and they sign in again. */
export function ResetPage({ secret, onDone }: { secret: string; onDone: () => Promise<void> }) {
  const [password, setPassword] = useState('')
  const { error, gone, busy, run } = useOneTime(async () => {
    await call(client.POST('/v1/password-reset', { body: { secret, password } }))
    setPassword('')
    await onDone()
  })
  if (gone) return <Gone kind="reset" />
  return (
    <Frame title="Choose a new password">
      <p class="muted">You will be signed out everywhere, then sign in with the new password.</p>
      <form onSubmit={run}>
        <NewPassword label="New password" value={password} onInput={setPassword} error={error} />
        <ErrorBox error={generalError(error, ['password'])} />
        <button type="submit" class="primary block" disabled={busy}>
          {busy ? 'Saving…' : 'Set the new password'}
        </button>
      </form>
    </Frame>
  )
}
