import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto'

const SECRET_PREFIX = 'whsec_'
/** 32 random bytes: above the 24 the API requires, the size of an HMAC-SHA256 block's key. */
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

/** The key id a stored secret was sealed with; undefined for a secret stored in plain text. */
export const sealedKeyId = (stored: string): string | undefined => (stored.startsWith('v1:') ? stored.split(':')[1] : undefined)

/**
 * Keeps signing secrets encrypted at rest (docs/adr/0006-webhook-secrets-at-rest.md): AES-256-GCM
 * under a key derived from the key material (LINKLINE_WEBHOOKS_SECRET_KEY, else the key file beside
 * the data), stored as `v1:<key id>:<iv>:<ciphertext>:<tag>`. The material is asked for at the first
 * use only, so that a process which never seals or opens a secret (the CLI) never creates a key.
 * `plain:<secret>`, written by releases that had no key by default, is still read.
 */
export function createSecretBox(keyMaterial: () => string) {
  let material: string | undefined
  const readMaterial = () => (material ??= keyMaterial())
  let derived: { key: Buffer; id: string } | undefined
  const key = () => {
    if (derived === undefined) {
      const key = createHash('sha256').update(readMaterial()).digest()
      derived = { key, id: createHash('sha256').update(key).digest('hex').slice(0, 8) }
    }
    return derived
  }
  return {
    /** The id of the key in use (the first 8 hex digits of its hash: names it without revealing it). */
    keyId: () => key().id,
    /**
     * 32 bytes for another use of the same key material, so that it needs no setting of its own and every
     * instance that shares the material derives the same: HKDF-SHA256 with `purpose` as its info, which
     * keeps each use's key independent of the others and of the webhook key.
     */
    deriveKey: (purpose: string): Buffer => Buffer.from(hkdfSync('sha256', readMaterial(), 'linkline', purpose, 32)),
    seal(secret: string): string {
      const { key: k, id } = key()
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', k, iv)
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
      return ['v1', id, iv.toString('base64'), ciphertext.toString('base64'), cipher.getAuthTag().toString('base64')].join(':')
    },
    open(stored: string): string {
      if (stored.startsWith('plain:')) return stored.slice('plain:'.length)
      const [version, storedKeyId, iv, ciphertext, tag] = stored.split(':')
      if (version !== 'v1' || iv === undefined || ciphertext === undefined || tag === undefined) throw new Error('unreadable webhook secret')
      const { key: k, id } = key()
      if (storedKeyId !== id) {
        throw new Error(`this webhook secret was sealed with key ${storedKeyId}; this server has key ${id} (LINKLINE_WEBHOOKS_SECRET_KEY or its key file)`)
      }
      const decipher = createDecipheriv('aes-256-gcm', k, Buffer.from(iv, 'base64'))
      decipher.setAuthTag(Buffer.from(tag, 'base64'))
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8')
    },
  }
}
export type SecretBox = ReturnType<typeof createSecretBox>
