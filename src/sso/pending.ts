import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { OidcPending } from './oidc.js'
import { SsoRefused } from './sso.errors.js'

/** How long a person has between leaving for the provider and coming back. */
export const PENDING_TTL_MS = 10 * 60_000

const VERSION = 'v1'
// Bound into each seal, so that a value sealed for another purpose under the same key is not opened as this one.
const PURPOSE = Buffer.from('linkline oidc pending v1')
const IV_BYTES = 12
const TAG_BYTES = 16

const checkKey = (key: Buffer): void => {
  if (key.length !== 32) throw new TypeError(`the key sealing single sign-on state must be 32 bytes (got ${key.length})`)
}

/**
 * What `begin` returned, sealed for the short-lived cookie that carries it to `finish`: AES-256-GCM
 * over the state, nonce, PKCE verifier, redirect URI and an expiry. The browser can neither read the
 * verifier nor forge or alter any of it. `v1.` + base64url(iv | ciphertext | tag): cookie-safe.
 */
export function sealPending(pending: OidcPending, key: Buffer, now = Date.now()): string {
  checkKey(key)
  const { state, nonce, codeVerifier, redirectUri } = pending
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(PURPOSE)
  const plain = JSON.stringify({ state, nonce, codeVerifier, redirectUri, expiresAt: now + PENDING_TTL_MS })
  const sealed = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()])
  return `${VERSION}.${sealed.toString('base64url')}`
}

/** The pending sign-in a cookie carries; SsoRefused when it is missing, altered, sealed under another key or expired. */
export function openPending(sealed: string | undefined, key: Buffer, now: number): OidcPending {
  checkKey(key)
  const again = 'start the sign-in again'
  if (sealed === undefined || sealed === '') {
    throw new SsoRefused(`this sign-in was not started in this browser, or its cookie was lost: ${again}`, 'no pending sign-in cookie')
  }
  let opened: unknown
  try {
    if (!sealed.startsWith(`${VERSION}.`)) throw new Error('unknown version')
    const bytes = Buffer.from(sealed.slice(VERSION.length + 1), 'base64url')
    if (bytes.length <= IV_BYTES + TAG_BYTES) throw new Error('too short')
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES)).setAAD(PURPOSE)
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
    const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()])
    opened = JSON.parse(plain.toString('utf8'))
  } catch (error) {
    throw new SsoRefused(`this sign-in's cookie is not valid: ${again}`, `pending sign-in cookie does not open: ${(error as Error).message}`)
  }
  const { state, nonce, codeVerifier, redirectUri, expiresAt } = opened as Record<string, unknown>
  if (typeof state !== 'string' || typeof nonce !== 'string' || typeof codeVerifier !== 'string' || typeof redirectUri !== 'string') {
    throw new SsoRefused(`this sign-in's cookie is not valid: ${again}`, 'pending sign-in cookie lacks a field')
  }
  if (typeof expiresAt !== 'number' || now >= expiresAt) {
    throw new SsoRefused(`this sign-in took longer than ${PENDING_TTL_MS / 60_000} minutes: ${again}`, 'pending sign-in expired')
  }
  return { state, nonce, codeVerifier, redirectUri }
}
