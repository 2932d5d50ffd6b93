import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import type { OidcPending } from './oidc.js'
import { openPending, PENDING_TTL_MS, sealPending } from './pending.js'
import { SsoRefused } from './sso.errors.js'

const KEY = randomBytes(32)
const NOW = Date.UTC(2026, 0, 15, 12)
const PENDING: OidcPending = {
  state: 'state-Qm9vZ',
  nonce: 'nonce-YmFy',
  codeVerifier: 'verifier-c2VjcmV0IHZlcmlmaWVyIG9mIGF0IGxlYXN0IDQzIGNoYXJz',
  redirectUri: 'https://links.example/v1/auth/oidc/callback',
}

const refused = (reason: RegExp) => (e: unknown) => e instanceof SsoRefused && reason.test(e.reason)

test('a sealed sign-in opens to what was sealed, and shows none of it', () => {
  const sealed = sealPending(PENDING, KEY, NOW)
  assert.deepEqual(openPending(sealed, KEY, NOW + 1000), PENDING)
  assert.match(sealed, /^v1\.[A-Za-z0-9_-]+$/, 'cookie-safe')
  for (const value of Object.values(PENDING)) assert.ok(!sealed.includes(value) && !Buffer.from(sealed.slice(3), 'base64url').includes(value))
  // A fresh IV each time: two seals of the same sign-in differ.
  assert.notEqual(sealPending(PENDING, KEY, NOW), sealed)
})

test('a seal altered anywhere, cut short, or sealed under another key does not open', () => {
  const sealed = sealPending(PENDING, KEY, NOW)
  const body = Buffer.from(sealed.slice(3), 'base64url')
  // The IV, the ciphertext and the tag: one bit flipped in each place.
  for (const at of [0, 11, 12, body.length - 17, body.length - 16, body.length - 1]) {
    const altered = Buffer.from(body)
    altered[at]! ^= 1
    assert.throws(() => openPending(`v1.${altered.toString('base64url')}`, KEY, NOW), refused(/cookie is not valid/), `byte ${at}`)
  }
  for (const bad of [`v1.${body.subarray(0, 28).toString('base64url')}`, `v2.${body.toString('base64url')}`, 'v1.', 'garbage', '{"state":"x"}']) {
    assert.throws(() => openPending(bad, KEY, NOW), refused(/cookie is not valid/), bad)
  }
  assert.throws(() => openPending(sealed, randomBytes(32), NOW), refused(/cookie is not valid/))
})

test('no cookie at all is a sign-in not begun in this browser', () => {
  for (const missing of [undefined, '']) assert.throws(() => openPending(missing, KEY, NOW), refused(/not started in this browser/))
})

test('a sealed sign-in lasts ten minutes', () => {
  assert.equal(PENDING_TTL_MS, 10 * 60_000)
  const sealed = sealPending(PENDING, KEY, NOW)
  assert.deepEqual(openPending(sealed, KEY, NOW + PENDING_TTL_MS - 1), PENDING)
  assert.throws(() => openPending(sealed, KEY, NOW + PENDING_TTL_MS), refused(/took longer than 10 minutes/))
})

test('the key is 32 bytes', () => {
  assert.throws(() => sealPending(PENDING, randomBytes(16), NOW), /must be 32 bytes \(got 16\)/)
  assert.throws(() => openPending('v1.x', Buffer.alloc(0), NOW), /must be 32 bytes \(got 0\)/)
})
