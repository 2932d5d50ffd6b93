import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { pino } from 'pino'
import { Webhook } from 'standardwebhooks'
import { backends } from '../../test/backends.js'
import { createTestDatabase, startTestServer, type TestDatabase, type TestServer } from '../../test/build-test-app.js'
import { startReceiver, type Receiver } from '../../test/webhook-receiver.js'
import { readOrCreateKeyFile } from './secret-key.js'
import { createSecretBox, sealedKeyId } from './signing.js'

const silent = pino({ level: 'silent' })

test('the key file is created once, mode 0600, complete, and read as it is afterwards', () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-key-'))
  try {
    const path = join(dir, 'nested', 'linkline.key')
    const key = readOrCreateKeyFile(path, silent)
    assert.match(key, /^[A-Za-z0-9+/]{43}=$/)
    assert.equal(statSync(path).mode & 0o777, 0o600)
    assert.equal(readOrCreateKeyFile(path, silent), key)
    assert.deepEqual(readdirSync(join(dir, 'nested')), ['linkline.key'], 'no temporary file is left')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

for (const backend of backends) {
  describe(`webhook secrets encrypted by default (${backend})`, () => {
    let database: TestDatabase
    let r: Receiver
    let s: TestServer | undefined
    const env = { LINKLINE_WEBHOOKS_ALLOW_PRIVATE: 'true', LINKLINE_WEBHOOKS_POLL_INTERVAL_MS: '20' }
    before(async () => {
      database = await createTestDatabase(backend)
      r = await startReceiver()
    })
    after(async () => {
      await s?.close()
      await r.close()
      await database.drop()
    })
    const restart = async () => {
      await s?.close()
      s = await startTestServer({ database, env })
      return s
    }
    const storedSecret = async (server: TestServer, id: string) =>
      (await server.container.storage.db.selectFrom('webhooks').select('secret').where('id', '=', id).executeTakeFirstOrThrow()).secret
    /** Sends a test event and checks its signature with the secret shown at creation. */
    const assertDelivers = async (server: TestServer, hook: { id: string; secret: string }, path: string) => {
      assert.equal((await server.request('POST', `/v1/webhooks/${hook.id}/test`)).status, 202)
      const [got] = (await r.waitFor((all) => all.some((x) => x.path === path))).filter((x) => x.path === path)
      const headers = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, got?.headers[h] as string])
      const event = new Webhook(hook.secret).verify(got?.body ?? '', Object.fromEntries(headers)) as { type: string }
      assert.equal(event.type, 'webhook.test')
    }

    test('the first start creates a 0600 key file; secrets are stored sealed; a restart reads the same key and deliveries verify', async () => {
      let server = await restart()
      const keyFile = server.container.config.webhooksSecretKeyFile
      assert.equal(statSync(keyFile).mode & 0o777, 0o600)
      const key = readFileSync(keyFile, 'utf8')
      const created = await server.request('POST', '/v1/webhooks', { json: { url: r.url('/first'), events: ['*'] } })
      assert.equal(created.status, 201, created.text)
      const hook = created.body.data as { id: string; secret: string }
      const stored = await storedSecret(server, hook.id)
      assert.match(stored, /^v1:[0-9a-f]{8}:/)
      assert.ok(!stored.includes(hook.secret.slice('whsec_'.length)), 'the secret is not in the database')

      server = await restart()
      assert.equal(readFileSync(keyFile, 'utf8'), key, 'the same key')
      await assertDelivers(server, hook, '/first')
    })

    test('a secret stored in plain text keeps working, and is encrypted at the next start', async () => {
      let server = await restart()
      const created = await server.request('POST', '/v1/webhooks', { json: { url: r.url('/legacy'), events: ['*'] } })
      const hook = created.body.data as { id: string; secret: string }
      // As a release without a default key stored it.
      await server.container.storage.db
        .updateTable('webhooks')
        .set({ secret: `plain:${hook.secret}` })
        .where('id', '=', hook.id)
        .execute()
      server = await restart()
      assert.match(await storedSecret(server, hook.id), /^v1:[0-9a-f]{8}:/)
      await assertDelivers(server, hook, '/legacy')
    })
  })
}

test('LINKLINE_WEBHOOKS_SECRET_KEY overrides the key file: none is created, and secrets are sealed with the key it names', async () => {
  const material = 'k'.repeat(40)
  const s = await startTestServer({ env: { LINKLINE_WEBHOOKS_SECRET_KEY: material, LINKLINE_WEBHOOKS_ALLOW_PRIVATE: 'true' } })
  try {
    const created = await s.request('POST', '/v1/webhooks', { json: { url: 'http://127.0.0.1:9/', events: ['*'] } })
    assert.equal(created.status, 201, created.text)
    assert.equal(existsSync(s.container.config.webhooksSecretKeyFile), false)
    const stored = await s.container.storage.db.selectFrom('webhooks').select('secret').executeTakeFirstOrThrow()
    assert.equal(sealedKeyId(stored.secret), createSecretBox(() => material).keyId())
  } finally {
    await s.close()
  }
})

test('keys derived for other uses: 32 bytes, the same from the same material and purpose, independent otherwise', () => {
  const material = 'k'.repeat(40)
  let reads = 0
  const box = createSecretBox(() => (reads++, material))
  const key = box.deriveKey('oidc pending')
  assert.equal(key.length, 32)
  assert.deepEqual(createSecretBox(() => material).deriveKey('oidc pending'), key, 'another instance with the same material derives the same key')
  assert.notDeepEqual(box.deriveKey('another purpose'), key)
  assert.notDeepEqual(createSecretBox(() => 'm'.repeat(40)).deriveKey('oidc pending'), key)
  assert.notDeepEqual(key, createHash('sha256').update(material).digest(), 'nor is it the key that seals webhook secrets')
  assert.equal(reads, 1, 'the material (a file, by default) is read once')
})
