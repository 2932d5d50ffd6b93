import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import Provider, { type Adapter, type AdapterPayload, type ClientAuthMethod } from 'oidc-provider'
import { freePort } from './free-port.js'

/** A person at the test provider, found by the login typed on its form. Absent claims are not sent. */
export interface ProviderAccount {
  /** The `sub` claim; the login by default. */
  readonly sub?: string
  readonly email?: string
  readonly email_verified?: boolean
  readonly name?: string
}

export interface OidcProviderOptions {
  readonly redirectUris: readonly string[]
  /** Read at each sign-in, so a test may add, change or remove accounts while the provider runs. */
  readonly accounts: Record<string, ProviderAccount>
  /** A port to listen on (to bring up a provider an issuer URL already names); a free one by default. */
  readonly port?: number
  /** The client's secret; a random one by default. */
  readonly clientSecret?: string
  /** Put the claims in the ID token too; by default they come from the userinfo endpoint only, as with many providers. */
  readonly claimsInIdToken?: boolean
  /** How the client authenticates at the token endpoint, and the only method the provider then offers. */
  readonly clientAuthMethod?: Extract<ClientAuthMethod, 'client_secret_basic' | 'client_secret_post'>
}

/**
 * A real OpenID provider (oidc-provider) on http://127.0.0.1:<port>, for tests: one confidential
 * client that must use the authorization code flow with PKCE, the claims email, email_verified and
 * name, and a login form that a test fills without a browser (signInAtProvider). Consent is given at
 * once, as a provider configured for a first-party application does.
 */
export async function startOidcProvider(options: OidcProviderOptions) {
  const port = options.port ?? (await freePort())
  const issuer = `http://127.0.0.1:${port}`
  const clientId = 'linkline'
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url')
  const authMethod = options.clientAuthMethod ?? 'client_secret_basic'
  const subjectOf = (login: string): string => options.accounts[login]?.sub ?? login
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' })

  const provider = new Provider(issuer, {
    adapter: memoryAdapter(),
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [...options.redirectUris],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: authMethod,
      },
    ],
    clientAuthMethods: [authMethod],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: !options.claimsInIdToken,
    // The account id is the `sub` claim, which the provider takes from it.
    findAccount: (_ctx, id) => {
      const login = Object.keys(options.accounts).find((login) => subjectOf(login) === id)
      return login === undefined ? undefined : { accountId: id, claims: () => ({ ...options.accounts[login], sub: id }) }
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    jwks: { keys: [{ ...signingKey, use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
  })
  const oidcCallback = provider.callback()

  /** The interaction endpoints of oidc-provider's examples: a login form, its answer, and consent given at once. */
  async function interaction(req: IncomingMessage, res: ServerResponse, action: string | undefined): Promise<void> {
    const details = await provider.interactionDetails(req, res)
    if (action === undefined && details.prompt.name === 'consent') {
      const { missingOIDCScope = [], missingOIDCClaims = [] } = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] }
      const grant =
        details.grantId === undefined ? new provider.Grant({ accountId: details.session?.accountId, clientId }) : await provider.Grant.find(details.grantId)
      if (grant === undefined) throw new Error(`no grant ${details.grantId}`)
      grant.addOIDCScope(missingOIDCScope.join(' '))
      grant.addOIDCClaims(missingOIDCClaims)
      return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true })
    }
    if (action === undefined) {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<form method="post" action="/interaction/${details.uid}/login"><input name="login"></form>`)
      return
    }
    if (action === 'abort') {
      return provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'End-User aborted interaction' },
        { mergeWithLastSubmission: false },
      )
    }
    const login = new URLSearchParams(await body(req)).get('login') ?? ''
    if (options.accounts[login] === undefined) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`unknown login "${login}"`)
      return
    }
    return provider.interactionFinished(req, res, { login: { accountId: subjectOf(login) } }, { mergeWithLastSubmission: false })
  }

  /** `METHOD /path` of every request the provider received, oldest first. */
  const requests: string[] = []
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${new URL(req.url ?? '/', issuer).pathname}`)
    const match = /^\/interaction\/([\w-]+)(?:\/(login|abort))?$/.exec(new URL(req.url ?? '/', issuer).pathname)
    if (match === null) {
      // Koa's handler answers its own errors: the promise never rejects.
      void oidcCallback(req, res)
      return
    }
    const action = match[2]
    if ((req.method === 'POST') !== (action !== undefined)) return void res.writeHead(405).end()
    interaction(req, res, action).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(String(error))
    })
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve))

  return {
    issuer,
    clientId,
    clientSecret,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
export type TestOidcProvider = Awaited<ReturnType<typeof startOidcProvider>>

const body = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })

/**
 * Plays the browser at the provider: from the authorization URL, follows its redirects by hand with
 * the cookies it sets, fills the login form with `login` (or cancels it: `{ deny: true }`), and
 * returns the URL the provider finally sends the browser to, the client's redirect URI with `code`
 * (or `error`) and `state`. That is the first redirect away from the provider's origin.
 */
export async function signInAtProvider(authorizationUrl: string, as: string | { deny: true }): Promise<URL> {
  const jar = new Map<string, string>()
  let url = new URL(authorizationUrl)
  let request: RequestInit = {}
  for (let step = 0; step < 20; step++) {
    const response = await fetch(url, {
      ...request,
      redirect: 'manual',
      headers: { ...(request.headers as Record<string, string>), cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') },
    })
    keepCookies(jar, response.headers.getSetCookie())
    const location = response.headers.get('location')
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel()
      const next = new URL(location, url)
      if (next.origin !== url.origin) return next
      url = next
      request = {}
      continue
    }
    const text = await response.text()
    if (response.status === 200 && /^\/interaction\/[\w-]+$/.test(url.pathname)) {
      const deny = typeof as !== 'string'
      url = new URL(`${url.pathname}/${deny ? 'abort' : 'login'}`, url)
      request = deny
        ? { method: 'POST' }
        : { method: 'POST', body: new URLSearchParams({ login: as }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } }
      continue
    }
    throw new Error(`the test provider answered ${response.status} at ${url.pathname}: ${text.slice(0, 300)}`)
  }
  throw new Error('the test provider redirected more than 20 times')
}

function keepCookies(jar: Map<string, string>, setCookies: readonly string[]): void {
  for (const line of setCookies) {
    const [pair = '', ...attributes] = line.split(';')
    const at = pair.indexOf('=')
    const name = pair.slice(0, at).trim()
    const expired = attributes.some((a) => {
      const [key = '', value = ''] = a.trim().split('=')
      return (key.toLowerCase() === 'expires' && Date.parse(value) <= Date.now()) || (key.toLowerCase() === 'max-age' && Number(value) <= 0)
    })
    if (expired) jar.delete(name)
    else jar.set(name, pair.slice(at + 1).trim())
  }
}

/** oidc-provider's storage, in memory and per provider (its built-in one is shared by every provider of the process, and warns). */
function memoryAdapter() {
  const store = new Map<string, { payload: AdapterPayload; expiresAt: number }>()
  const live = (key: string) => {
    const entry = store.get(key)
    if (entry !== undefined && entry.expiresAt <= Date.now()) store.delete(key)
    return entry !== undefined && entry.expiresAt > Date.now() ? entry.payload : undefined
  }
  return (model: string): Adapter => ({
    upsert: async (id, payload, expiresIn) =>
      void store.set(`${model}:${id}`, { payload, expiresAt: expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000 }),
    find: async (id) => live(`${model}:${id}`),
    findByUid: async (uid) => [...store.entries()].find(([key, { payload }]) => key.startsWith(`${model}:`) && payload.uid === uid && live(key))?.[1].payload,
    findByUserCode: async (userCode) =>
      [...store.entries()].find(([key, { payload }]) => key.startsWith(`${model}:`) && payload.userCode === userCode && live(key))?.[1].payload,
    consume: async (id) => {
      const payload = live(`${model}:${id}`)
      if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000)
    },
    destroy: async (id) => void store.delete(`${model}:${id}`),
    revokeByGrantId: async (grantId) => {
      for (const [key, { payload }] of store) if (payload.grantId === grantId) store.delete(key)
    },
  })
}
