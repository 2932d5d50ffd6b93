import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto'

const SECRET_PREFIX = 'whsec_'
/** 32 random bytes: above the 24 the contract asks for, the size of an HMAC-SHA256 block's key. */
const SECRET_BYTES = 32

/** A new signing secret, `whsec_` + base64 of random bytes (Standard Webhooks). */
export const newSecret = () => `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`

/**
 * The Standard Webhooks signature of one attempt: `v1,` + base64 of HMAC-SHA256 over
 * `id.timestamp.body`, keyed with the base64-decoded part of the secret after `whsec_`.
 */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`
}

/**
 * Keeps signing secrets encrypted at rest (docs/adr/0006-webhook-secrets-at-rest.md): AES-256-GCM
 * under a key derived from LINKLINE_WEBHOOKS_SECRET_KEY, stored as `v1:<key id>:<iv>:<ciphertext>:<tag>`.
 * Without that key, secrets are stored as `plain:<secret>` (and the server says so at start).
 */
export function createSecretBox(keyMaterial: string | undefined) {
  const key = keyMaterial === undefined ? undefined : createHash('sha256').update(keyMaterial).digest()
  const keyId = key === undefined ? undefined : createHash('sha256').update(key).digest('hex').slice(0, 8)
  return {
    encrypted: key !== undefined,
    seal(secret: string): string {
      if (key === undefined) return `plain:${secret}`
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
      return ['v1', keyId, iv.toString('base64'), ciphertext.toString('base64'), cipher.getAuthTag().toString('base64')].join(':')
    },
    open(stored: string): string {
      if (stored.startsWith('plain:')) return stored.slice('plain:'.length)
      const [version, storedKeyId, iv, ciphertext, tag] = stored.split(':')
      if (version !== 'v1' || iv === undefined || ciphertext === undefined || tag === undefined) throw new Error('unreadable webhook secret')
      if (key === undefined || storedKeyId !== keyId) {
        throw new Error(
          `this webhook secret was sealed with key ${storedKeyId}; LINKLINE_WEBHOOKS_SECRET_KEY ${key === undefined ? 'is unset' : `is key ${keyId}`}`,
        )
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'))
      decipher.setAuthTag(Buffer.from(tag, 'base64'))
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8')
    },
  }
}
export type SecretBox = ReturnType<typeof createSecretBox>
