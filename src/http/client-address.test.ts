import assert from 'node:assert/strict'
import { test } from 'node:test'
import { withoutSecrets } from './client-address.js'

test("request logs keep the dashboard's one-time secrets out, and every other target as it is", () => {
  const secret = 'hV3p4Yx0S2c1l8mQf9rT7uWz6aB5nE3kJ0dG1iO2qLs'
  assert.equal(withoutSecrets(`/app/invite/${secret}`), '/app/invite/…')
  assert.equal(withoutSecrets(`/app/reset/${secret}?from=mail`), '/app/reset/…?from=mail')
  assert.equal(withoutSecrets(`/app/setup?code=${secret}`), '/app/setup?code=…')
  assert.equal(withoutSecrets(`/app/setup?lang=en&code=${secret}&x=1`), '/app/setup?lang=en&code=…&x=1')
  for (const kept of ['/app/', '/app/links', '/v1/invitations', `/invite/${secret}`, `/app/setup?mode=${secret}`]) assert.equal(withoutSecrets(kept), kept)
})
