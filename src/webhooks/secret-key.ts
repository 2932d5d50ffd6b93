import { randomBytes } from 'node:crypto'
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import { sealedKeyId, type SecretBox } from './signing.js'
import type { WebhooksRepository } from './webhooks.repository.js'

/** At least the 32 characters LINKLINE_WEBHOOKS_SECRET_KEY asks for: the file's content is a valid value of it. */
const MIN_KEY_CHARS = 32

function readKey(path: string, logger: Pick<FastifyBaseLogger, 'warn'>): string {
  const key = readFileSync(path, 'utf8').trim()
  if (key.length < MIN_KEY_CHARS) throw new Error(`${path} holds no webhook secret key (fewer than ${MIN_KEY_CHARS} characters)`)
  if ((statSync(path).mode & 0o077) !== 0) logger.warn({ path }, 'the webhook secret key file is readable by other users: chmod 600 it')
  return key
}

/**
 * The key material in `path`, created on the first call: 32 random bytes, base64, mode 0600. The file
 * is written complete under a temporary name (O_EXCL) and then hard-linked to `path`, which fails if
 * `path` exists: of two processes starting together, one key wins and both read it, never half of it.
 */
export function readOrCreateKeyFile(path: string, logger: Pick<FastifyBaseLogger, 'warn'>): string {
  try {
    return readKey(path, logger)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  mkdirSync(dirname(path), { recursive: true })
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`
  writeFileSync(temporary, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 })
  try {
    linkSync(temporary, path)
    logger.warn(
      { path },
      'created the webhook secret key file: back it up with the database (without it, webhook signing secrets cannot be read), or set LINKLINE_WEBHOOKS_SECRET_KEY',
    )
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    unlinkSync(temporary)
  }
  return readKey(path, logger)
}

/**
 * At a server's start: makes sure there is a key (the first start creates its file), seals the secrets
 * that releases without a default key stored in plain text, and says so when secrets were sealed
 * with another key (instances that do not share one: their deliveries would fail).
 */
export async function sealStoredSecrets(deps: { repo: WebhooksRepository; box: SecretBox; logger: Pick<FastifyBaseLogger, 'info' | 'error'> }): Promise<void> {
  const ours = deps.box.keyId()
  let sealed = 0
  const foreign = new Set<string>()
  for (const { id, secret } of await deps.repo.secrets()) {
    const keyId = sealedKeyId(secret)
    if (keyId === undefined) {
      // Only if unchanged since read: another instance sealing it at the same time wrote the same secret.
      if (await deps.repo.replaceSecret(id, secret, deps.box.seal(deps.box.open(secret)))) sealed++
    } else if (keyId !== ours) foreign.add(keyId)
  }
  if (sealed > 0) deps.logger.info({ sealed }, 'webhook signing secrets stored in plain text are now encrypted')
  if (foreign.size > 0) {
    deps.logger.error(
      { keyIds: [...foreign], keyId: ours },
      'some webhook signing secrets were sealed with another key: their deliveries fail here until every instance has the same key (LINKLINE_WEBHOOKS_SECRET_KEY or the key file)',
    )
  }
}
