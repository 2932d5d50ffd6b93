import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'

describe('the root of a default domain', () => {
  let s: TestServer
  let elsewhere: TestServer
  before(async () => {
    s = await startTestServer()
    elsewhere = await startTestServer({ env: { LINKLINE_ROOT_URL: 'https://www.example.com/' } })
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
})
