import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { freePort } from '../../test/free-port.js'
import { signInAtProvider, startOidcProvider, type ProviderAccount, type TestOidcProvider } from '../../test/oidc-provider.js'
import { createOidc, type Oidc, type OidcPending } from './oidc.js'
import { SsoRefused, SsoUnavailable } from './sso.errors.js'

// Linkline's callback: the provider sends the browser there, and these tests stop at that redirect.
const REDIRECT_URI = 'http://127.0.0.1:8080/v1/auth/oidc/callback'
const ACCOUNTS: Record<string, ProviderAccount> = {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Liddell' },
  bob: { sub: 'b-0042', email: ' Bob@Example.org ', email_verified: false },
  nomail: { name: 'No Mail' },
}

const oidcFor = (provider: TestOidcProvider, extra: { allowInsecureIssuer?: boolean; clientSecret?: string } = {}): Oidc =>
  createOidc({ issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, allowInsecureIssuer: true, ...extra })

/** A sign-in begun and completed at the provider as `login`: what the browser brings back to the callback. */
async function signIn(oidc: Oidc, login: string | { deny: true }): Promise<{ callback: URL; pending: OidcPending }> {
  const { url, pending } = await oidc.begin(REDIRECT_URI)
  return { callback: await signInAtProvider(url, login), pending }
}

/** Asserts that `promise` rejects with `type`, its reason (for the person) and its message (for the log) matching. */
const rejectsWith = (promise: Promise<unknown>, type: typeof SsoRefused | typeof SsoUnavailable, reason: RegExp, message = /./) =>
  assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof type, `expected ${type.name}, got ${String(e)}`)
    assert.match(e.reason, reason)
    assert.match(e.message, message)
    return true
  })

describe('single sign-on against a real OpenID provider', () => {
  let provider: TestOidcProvider
  let oidc: Oidc
  before(async () => {
    provider = await startOidcProvider({ redirectUris: [REDIRECT_URI], accounts: ACCOUNTS })
    oidc = oidcFor(provider)
  })
  after(() => provider.close())

  test('begin sends the person to the provider with PKCE (S256), state, nonce and the three scopes', async () => {
    const { url, pending } = await oidc.begin(REDIRECT_URI)
    const sent = new URL(url)
    assert.equal(sent.origin, provider.issuer)
    assert.equal(sent.searchParams.get('response_type'), 'code')
    assert.equal(sent.searchParams.get('client_id'), provider.clientId)
    assert.equal(sent.searchParams.get('redirect_uri'), REDIRECT_URI)
    assert.equal(sent.searchParams.get('scope'), 'openid email profile')
    assert.equal(sent.searchParams.get('code_challenge_method'), 'S256')
    assert.equal(sent.searchParams.get('code_challenge'), createHash('sha256').update(pending.codeVerifier).digest('base64url'))
    assert.equal(sent.searchParams.get('state'), pending.state)
    assert.equal(sent.searchParams.get('nonce'), pending.nonce)
    assert.equal(pending.redirectUri, REDIRECT_URI)
    // The verifier never leaves in the URL; each sign-in draws its own values.
    assert.ok(!url.includes(pending.codeVerifier))
    const other = (await oidc.begin(REDIRECT_URI)).pending
    for (const field of ['state', 'nonce', 'codeVerifier'] as const) assert.notEqual(other[field], pending[field])
  })

  test('a completed sign-in gives the subject, email, whether it is verified, and the name', async () => {
    const alice = await signIn(oidc, 'alice')
    assert.equal(alice.callback.origin + alice.callback.pathname, REDIRECT_URI)
    assert.deepEqual(await oidc.finish(alice.callback, alice.pending), {
      subject: 'alice',
      email: 'alice@example.com',
      emailVerified: true,
      name: 'Alice Liddell',
    })
    const bob = await signIn(oidc, 'bob')
    assert.deepEqual(await oidc.finish(bob.callback, bob.pending), { subject: 'b-0042', email: 'Bob@Example.org', emailVerified: false, name: null })
    // These claims come from the userinfo endpoint: this provider keeps its ID tokens to the bare minimum.
    assert.ok(provider.requests.includes('GET /me'))
  })

  test('only the parameters of the callback URL count, not the host it reached Linkline through', async () => {
    const { callback, pending } = await signIn(oidc, 'alice')
    const behindProxy = new URL(`http://10.0.0.7:9000/v1/auth/oidc/callback${callback.search}`)
    assert.equal((await oidc.finish(behindProxy, pending)).email, 'alice@example.com')
  })

  test('an answer that does not match the sign-in this browser began is refused: state, nonce, PKCE verifier', async () => {
    const forged = await signIn(oidc, 'alice')
    const tampered = new URL(forged.callback)
    tampered.searchParams.set('state', `${forged.pending.state}x`)
    await rejectsWith(oidc.finish(tampered, forged.pending), SsoRefused, /failed a security check/, /"state"/)
    // Another sign-in's answer, brought back to this one (login CSRF).
    const mine = await oidc.begin(REDIRECT_URI)
    const theirs = await signIn(oidc, 'alice')
    await rejectsWith(oidc.finish(theirs.callback, mine.pending), SsoRefused, /failed a security check/, /"state"/)

    const nonce = await signIn(oidc, 'alice')
    await rejectsWith(oidc.finish(nonce.callback, { ...nonce.pending, nonce: 'another-nonce' }), SsoRefused, /failed a security check/, /"nonce"/)
    const verifier = await signIn(oidc, 'alice')
    const otherVerifier = (await oidc.begin(REDIRECT_URI)).pending.codeVerifier
    await rejectsWith(
      oidc.finish(verifier.callback, { ...verifier.pending, codeVerifier: otherVerifier }),
      SsoRefused,
      /did not accept this sign-in/,
      /invalid_grant/,
    )
    // The untouched answer itself still works.
    assert.equal((await oidc.finish(forged.callback, forged.pending)).subject, 'alice')
  })

  test('a code is used once: the same callback again is refused', async () => {
    const { callback, pending } = await signIn(oidc, 'alice')
    assert.equal((await oidc.finish(callback, pending)).email, 'alice@example.com')
    await rejectsWith(oidc.finish(callback, pending), SsoRefused, /did not accept this sign-in/, /invalid_grant/)
  })

  test('a person who cancels at the provider, or one it refuses, is refused', async () => {
    const cancelled = await signIn(oidc, { deny: true })
    assert.equal(cancelled.callback.searchParams.get('error'), 'access_denied')
    await rejectsWith(oidc.finish(cancelled.callback, cancelled.pending), SsoRefused, /^the sign-in was cancelled or refused at the provider$/)
    // Any other error the provider sends back, with the state of this sign-in.
    const { pending } = await oidc.begin(REDIRECT_URI)
    const error = new URL(`${REDIRECT_URI}?error=temporarily_unavailable&error_description=down&state=${pending.state}&iss=${provider.issuer}`)
    await rejectsWith(oidc.finish(error, pending), SsoRefused, /^the provider refused the sign-in \(temporarily_unavailable\)$/)
  })

  test('a person without an email address at the provider is refused', async () => {
    const { callback, pending } = await signIn(oidc, 'nomail')
    await rejectsWith(oidc.finish(callback, pending), SsoRefused, /did not share an email address/)
  })

  test('a wrong client secret is a set-up problem, not a refused person', async () => {
    const misconfigured = oidcFor(provider, { clientSecret: 'not-the-secret' })
    const { callback, pending } = await signIn(misconfigured, 'alice')
    await rejectsWith(misconfigured.finish(callback, pending), SsoUnavailable, /refused its client id or secret/)
  })

  test('an http issuer is used only when allowed', async () => {
    const strict = oidcFor(provider, { allowInsecureIssuer: false })
    await assert.rejects(strict.begin(REDIRECT_URI), (e: unknown) => e instanceof SsoUnavailable && /is not an https URL/.test(e.message))
  })
})

test('claims in the ID token are read from it, and a provider offering client_secret_post alone gets it', async () => {
  const provider = await startOidcProvider({
    redirectUris: [REDIRECT_URI],
    accounts: ACCOUNTS,
    claimsInIdToken: true,
    clientAuthMethod: 'client_secret_post',
  })
  try {
    const oidc = oidcFor(provider)
    const { callback, pending } = await signIn(oidc, 'alice')
    assert.deepEqual(await oidc.finish(callback, pending), { subject: 'alice', email: 'alice@example.com', emailVerified: true, name: 'Alice Liddell' })
    assert.ok(!provider.requests.includes('GET /me'), provider.requests.join(', '))
  } finally {
    await provider.close()
  }
})

test('an unreachable provider is SsoUnavailable, logged, and discovered again at a later sign-in', async () => {
  const port = await freePort()
  const warnings: unknown[] = []
  const clientSecret = 'a-secret-for-this-test'
  const oidc = createOidc({
    issuer: `http://127.0.0.1:${port}`,
    clientId: 'linkline',
    clientSecret,
    allowInsecureIssuer: true,
    logger: { warn: (obj: unknown) => void warnings.push(obj) },
  })
  const down = (e: unknown) => e instanceof SsoUnavailable && e.reason === 'single sign-on is unavailable right now' && /ECONNREFUSED/.test(e.message)
  await assert.rejects(oidc.begin(REDIRECT_URI), down)
  const pending: OidcPending = { state: 's', nonce: 'n', codeVerifier: 'v'.repeat(43), redirectUri: REDIRECT_URI }
  await assert.rejects(oidc.finish(new URL(`${REDIRECT_URI}?code=c&state=s`), pending), down)
  assert.equal(warnings.length, 2)

  const provider = await startOidcProvider({ port, clientSecret, redirectUris: [REDIRECT_URI], accounts: ACCOUNTS })
  try {
    const { callback, pending: begun } = await signIn(oidc, 'alice')
    assert.equal((await oidc.finish(callback, begun)).email, 'alice@example.com')
  } finally {
    await provider.close()
  }
})
