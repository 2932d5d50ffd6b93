// The base styles first: a page's own stylesheet, imported by its module, comes after and refines them.
import './styles.css'
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, call, client, onSignedOut, type Me } from './api'
import { navigate, replaceRoute, useRoute } from './router'
import { ErrorBox } from './ui'
import { InvitePage, ResetPage, SetupPage } from './pages/one-time'
import { PublicStatsPage } from './pages/public-stats'
import { SignInPage } from './pages/sign-in'
import { Shell, ShellSkeleton, type ShellActions } from './shell'

/** Who is signed in drives everything: GET /v1/me (the person, the workspace, its scopes, every membership). */
const whoAmI = async (): Promise<Me | null> => {
  try {
    return (await call(client.GET('/v1/me'), { quietUnauthorized: true })).data
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null
    throw e
  }
}

const isPublic = (path: string) => /^\/public\/([^/]+)$/.exec(path)

function App() {
  const { path, query } = useRoute()
  const [me, setMe] = useState<Me | null | undefined>(undefined)
  const [error, setError] = useState<unknown>(null)
  const refresh = async () => {
    try {
      setMe(await whoAmI())
      setError(null)
    } catch (e) {
      setError(e)
    }
  }
  useEffect(() => {
    // A public statistics page is for people without an account: it does not ask who is signed in.
    if (!isPublic(path)) void refresh()
    return onSignedOut(() => setMe(null))
  }, [])

  /** Signed in (a form, a one-time link): the app, without what the URL said to the signed-out page. */
  const signedIn = async () => {
    await refresh()
    if (path !== '/' || query.has('notice') || query.has('sso_error')) replaceRoute('/')
  }
  /** Ends the session (or all of them), then shows `then`: a page, or null to stay where the person is. */
  const endSession = async (request: () => Promise<unknown>, then: string | null) => {
    try {
      await request()
    } catch {
      // Already ended: signed out either way.
    }
    setMe(null)
    if (then !== null) navigate(then)
  }
  const signOutHere = () => call(client.DELETE('/v1/sessions/current'), { quietUnauthorized: true })
  const actions: ShellActions = {
    signOut: () => endSession(signOutHere, '/'),
    signOutEverywhere: () => endSession(() => call(client.DELETE('/v1/sessions'), { quietUnauthorized: true }), '/?notice=signed-out-everywhere'),
    switchWorkspace: async (workspaceId) => {
      try {
        await call(client.PUT('/v1/sessions/current', { body: { workspaceId } }))
        navigate('/')
        await refresh()
      } catch (e) {
        setError(e)
      }
    },
  }

  // A public link's statistics: for anyone, signed in or not, without waiting for the session.
  const publicStats = isPublic(path)
  if (publicStats) return <PublicStatsPage linkId={decodeURIComponent(publicStats[1]!)} />
  if (error)
    return (
      <main class="signin">
        <ErrorBox error={error} />
      </main>
    )
  // A slow server: the dashboard's frame rather than a blank page (most who open it are signed in).
  if (me === undefined) return <ShellSkeleton />
  // The pages one-time links open, signed in or not.
  const invite = /^\/invite\/([^/]+)$/.exec(path)
  const reset = /^\/reset\/([^/]+)$/.exec(path)
  if (path === '/setup') return <SetupPage code={query.get('code') ?? ''} onSignedIn={signedIn} />
  if (invite) return <InvitePage secret={decodeURIComponent(invite[1]!)} me={me} onSignedIn={signedIn} onSignOut={() => endSession(signOutHere, null)} />
  if (reset)
    return (
      <ResetPage
        secret={decodeURIComponent(reset[1]!)}
        onDone={async () => {
          // The reset ended that person's sessions; this browser may have been one of them.
          navigate('/?notice=password-set')
          await refresh()
        }}
      />
    )
  if (me === null) return <SignInPage onSignedIn={signedIn} query={query} />
  return <Shell me={me} actions={actions} />
}

render(<App />, document.getElementById('app')!)
