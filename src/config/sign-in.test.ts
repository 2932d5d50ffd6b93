import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../config.js'

const CLIENT = {
  LINKLINE_OIDC_ISSUER: 'https://auth.example/realms/acme',
  LINKLINE_OIDC_CLIENT_ID: 'linkline',
  LINKLINE_OIDC_CLIENT_SECRET: 's3cret',
}

/** Asserts that loadConfig refuses `env` with a ConfigError carrying `message`. */
const refuses = (env: Record<string, string>, message: string): void =>
  assert.throws(
    () => loadConfig(env),
    (e: unknown) => e instanceof ConfigError && e.message.includes(message),
    message,
  )

test('without the OIDC settings there is no single sign-on, and passwords sign people in', () => {
  const config = loadConfig({})
  assert.equal(config.oidc, undefined)
  assert.equal(config.passwordSignIn, true)
  assert.equal(config.publicUrl, undefined)
})

test('issuer, client id and secret make single sign-on, with the documented defaults', () => {
  const config = loadConfig({ ...CLIENT, LINKLINE_BOOTSTRAP_OWNER: 'acme' })
  assert.deepEqual(config.oidc, {
    issuer: 'https://auth.example/realms/acme',
    clientId: 'linkline',
    clientSecret: 's3cret',
    name: 'SSO',
    allowedDomains: [],
    defaultWorkspace: 'acme',
    defaultRole: 'member',
  })
  assert.ok(Object.isFrozen(config.oidc))
})

test('every sign-in setting is read', () => {
  const config = loadConfig({
    ...CLIENT,
    LINKLINE_OIDC_NAME: 'Acme ID',
    LINKLINE_OIDC_ALLOWED_DOMAINS: ' Example.COM , staff.example.org ,',
    LINKLINE_OIDC_DEFAULT_WORKSPACE: 'team',
    LINKLINE_OIDC_DEFAULT_ROLE: 'viewer',
    LINKLINE_PASSWORD_SIGNIN: 'off',
    LINKLINE_PUBLIC_URL: 'HTTPS://Links.Example:443/',
  })
  assert.equal(config.oidc?.name, 'Acme ID')
  assert.deepEqual(config.oidc?.allowedDomains, ['example.com', 'staff.example.org'])
  assert.equal(config.oidc?.defaultWorkspace, 'team')
  assert.equal(config.oidc?.defaultRole, 'viewer')
  assert.equal(config.passwordSignIn, false)
  // An origin: the redirect URI is built by appending the callback's path.
  assert.equal(config.publicUrl, 'https://links.example')
  assert.equal(loadConfig({ LINKLINE_PUBLIC_URL: 'http://127.0.0.1:8080' }).publicUrl, 'http://127.0.0.1:8080')
})

test('issuer, client id and secret are set together or not at all', () => {
  refuses(
    { LINKLINE_OIDC_ISSUER: CLIENT.LINKLINE_OIDC_ISSUER },
    'single sign-on needs LINKLINE_OIDC_ISSUER, LINKLINE_OIDC_CLIENT_ID, LINKLINE_OIDC_CLIENT_SECRET together ' +
      '(missing: LINKLINE_OIDC_CLIENT_ID, LINKLINE_OIDC_CLIENT_SECRET)',
  )
  refuses({ ...CLIENT, LINKLINE_OIDC_CLIENT_SECRET: '' }, '(missing: LINKLINE_OIDC_CLIENT_SECRET)')
})

test('the issuer is an http or https URL', () => {
  for (const issuer of ['auth.example', 'ftp://auth.example', 'https://user:pw@auth.example', 'https://auth.example/?realm=a', 'https://auth.example/#x']) {
    refuses({ ...CLIENT, LINKLINE_OIDC_ISSUER: issuer }, `LINKLINE_OIDC_ISSUER must be an http or https URL, without query or fragment (got "${issuer}")`)
  }
  assert.equal(loadConfig({ ...CLIENT, LINKLINE_OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.issuer, 'http://127.0.0.1:9000')
  // Kept as written: the provider's discovery document must name exactly this issuer, trailing slash included.
  assert.equal(loadConfig({ ...CLIENT, LINKLINE_OIDC_ISSUER: 'https://auth.example/o/linkline/' }).oidc?.issuer, 'https://auth.example/o/linkline/')
})

test('bad values of the other sign-in settings are refused at start, each with its own message', () => {
  refuses({ ...CLIENT, LINKLINE_OIDC_DEFAULT_ROLE: 'owner' }, 'LINKLINE_OIDC_DEFAULT_ROLE must be one of viewer, member, admin (got "owner")')
  refuses({ ...CLIENT, LINKLINE_OIDC_ALLOWED_DOMAINS: 'example.com,@example.org' }, 'email domains such as example.com (got "@example.org")')
  refuses({ ...CLIENT, LINKLINE_OIDC_ALLOWED_DOMAINS: 'example.com:443' }, '(got "example.com:443")')
  refuses({ LINKLINE_PASSWORD_SIGNIN: 'no' }, 'LINKLINE_PASSWORD_SIGNIN must be on or off (got "no")')
  for (const url of ['links.example', 'https://links.example/app', 'https://links.example?x=1', 'ftp://links.example']) {
    refuses({ LINKLINE_PUBLIC_URL: url }, `LINKLINE_PUBLIC_URL must be an http or https URL without a path, e.g. https://links.example.com (got "${url}")`)
  }
})

test('password sign-in can be turned off only when single sign-on is set up', () => {
  refuses({ LINKLINE_PASSWORD_SIGNIN: 'off' }, 'LINKLINE_PASSWORD_SIGNIN=off needs single sign-on')
  assert.equal(loadConfig({ ...CLIENT, LINKLINE_PASSWORD_SIGNIN: 'off' }).passwordSignIn, false)
})
