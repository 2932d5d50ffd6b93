import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { dashboardPage } from './dashboard.routes.js'

describe('the root of a default domain', () => {
  let s: TestServer
  let elsewhere: TestServer
  before(async () => {
    s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    elsewhere = await startTestServer({ env: { LINKLINE_ROOT_URL: 'https://www.example.com/', LINKLINE_BOOTSTRAP_OWNER: 'acme"<ops>' } })
  })
  after(async () => {
    await s.close()
    await elsewhere.close()
  })

  test('sends a person to the dashboard, or to LINKLINE_ROOT_URL', async () => {
    const root = await s.request('GET', '/', { token: null })
    assert.equal(root.status, 302)
    assert.equal(root.headers.location, '/app/')
    const configured = await elsewhere.request('GET', '/', { token: null })
    assert.equal(configured.status, 302)
    assert.equal(configured.headers.location, 'https://www.example.com/')
    const app = await s.request('GET', '/app', { token: null })
    assert.equal(app.status, 301)
    assert.equal(app.headers.location, '/app/')
  })

  test('/app serves the built dashboard: index.html revalidated under a strict CSP, hashed assets cached for a year', async () => {
    const index = await s.request('GET', '/app/', { token: null })
    assert.equal(index.status, 200)
    assert.match(String(index.headers['content-type']), /^text\/html/)
    assert.equal(index.headers['cache-control'], 'no-cache')
    const csp = String(index.headers['content-security-policy'])
    assert.match(csp, /default-src 'none'/)
    assert.match(csp, /script-src 'self'(;|$)/)
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/, 'no inline script, no other host')
    assert.doesNotMatch(index.text, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script in the page')
    // Every asset the page names is served from this origin, with a hashed name and a year of caching.
    const assets = [...index.text.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1] as string)
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), assets.join(' '))
    for (const asset of assets) {
      const res = await s.request('GET', asset, { token: null, headers: { 'accept-encoding': 'gzip' } })
      assert.equal(res.status, 200, asset)
      assert.match(asset, /-[\w-]{8}\.(js|css)$/)
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable')
      assert.equal(res.headers['content-encoding'], 'gzip')
      // Compressed at its first request and kept: the same bytes for the next, the file itself unzipped.
      const plain = await s.request('GET', asset, { token: null })
      assert.equal(plain.headers['content-encoding'], undefined, asset)
      assert.deepEqual(gunzipSync(res.raw), plain.raw, asset)
      assert.deepEqual((await s.request('GET', asset, { token: null, headers: { 'accept-encoding': 'gzip' } })).raw, res.raw, asset)
    }
    // A page of the dashboard is index.html; a missing asset is a 404, never the page.
    const deep = await s.request('GET', '/app/links/lnk_123', { token: null })
    assert.equal(deep.status, 200)
    assert.equal(deep.text, index.text)
    assert.equal((await s.request('GET', '/app/assets/index-missing.js', { token: null })).status, 404)
    // The pages one-time links open, whatever their secret holds, and a link's public statistics: none needs a session.
    for (const path of [
      '/app/setup?code=abc',
      '/app/invite/Zm9v_bar-1',
      '/app/reset/a.b',
      '/app/members',
      '/app/audit',
      '/app/public/lnk_01JD0000000000000000000000',
    ]) {
      const res = await s.request('GET', path, { token: null })
      assert.equal(res.status, 200, path)
      assert.equal(res.text, index.text, path)
    }
  })

  test('the page names the bootstrap workspace, for the sign-in hint, escaped', async () => {
    assert.match((await s.request('GET', '/app/', { token: null })).text, /<meta name="linkline-bootstrap-workspace" content="default">/)
    const other = await elsewhere.request('GET', '/app/', { token: null })
    assert.match(other.text, /<meta name="linkline-bootstrap-workspace" content="acme&quot;&lt;ops>">/)
  })

  test('the page says how people sign in: email and password on, single sign-on only when configured, escaped', async () => {
    const page = (await s.request('GET', '/app/', { token: null })).text
    assert.match(page, /<meta name="linkline-password-sign-in" content="on">/)
    assert.doesNotMatch(page, /linkline-sso/)
    const html = '<!doctype html><head><meta charset="utf-8"><title>t</title>'
    const sso = dashboardPage({ bootstrapWorkspace: 'default', signIn: { ssoName: 'Acme "SSO" <id>', password: false } })(html)
    assert.match(sso, /<meta name="linkline-password-sign-in" content="off">/)
    assert.match(sso, /<meta name="linkline-sso" content="Acme &quot;SSO&quot; &lt;id>">/)
    assert.doesNotMatch(sso, /<script/)
  })

  test('the dashboard is served on default domains only', async () => {
    // An unknown host is resolved against the first default domain, as redirects are.
    assert.equal((await s.request('GET', '/app/', { token: null, headers: { host: 'elsewhere.example' } })).status, 200)
    assert.equal((await s.request('POST', '/v1/domains', { json: { name: 'go.custom.example' } })).status, 201)
    const custom = await s.request('GET', '/app/', { token: null, headers: { host: 'go.custom.example' } })
    assert.equal(custom.status, 404)
    assert.equal(custom.body.error.code, 'not_found')
  })
})
