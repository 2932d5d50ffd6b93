import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { loadConfig, type Env } from '../config.js'
import { GENERATED, withSettings } from './settings-docs.js'
import { SETTINGS } from './settings.js'

const ROOT = new URL('../../../', import.meta.url)

test('the settings tables of README.md and docs/operations.md are those of src/config/settings.ts', () => {
  for (const path of Object.keys(GENERATED)) {
    const content = readFileSync(new URL(path, ROOT), 'utf8')
    assert.equal(withSettings(path, content), content, `${path} differs from src/config/settings.ts: run npm run docs:settings`)
  }
})

test('loadConfig reads every listed setting, and nothing else', () => {
  const read = new Set<string>()
  const env = new Proxy({} as Env, {
    get: (_, name) => {
      read.add(String(name))
      return undefined
    },
  })
  loadConfig(env)
  assert.deepEqual([...read].sort(), Object.keys(SETTINGS).sort())
})

test('each documented default is the one loadConfig applies', () => {
  const config = loadConfig({})
  assert.equal(config.port, SETTINGS.PORT.default)
  assert.equal(config.databaseUrl, SETTINGS.DATABASE_URL.default)
  assert.equal(config.fetchAllowPrivate, SETTINGS.LINKLINE_FETCH_ALLOW_PRIVATE.default)
  assert.equal(config.pageTitles, true)
  assert.equal(loadConfig({ LINKLINE_PAGE_TITLES: 'off' }).pageTitles, false)
  assert.throws(() => loadConfig({ LINKLINE_PAGE_TITLES: 'no' }), { message: /LINKLINE_PAGE_TITLES must be on or off/ })
  // The former name stays accepted.
  assert.equal(loadConfig({ LINKLINE_WEBHOOKS_ALLOW_PRIVATE: 'true' }).fetchAllowPrivate, true)
  // Derived from the threads and the queue; the table shows its value for their defaults.
  assert.equal(config.qrPerOwner, SETTINGS.LINKLINE_QR_PER_OWNER.default)
  assert.equal(loadConfig({ LINKLINE_QR_THREADS: '4', LINKLINE_QR_QUEUE: '0' }).qrPerOwner, 1)
  // Every integer setting enforces the range the tables are rendered from.
  for (const [name, setting] of Object.entries(SETTINGS)) {
    if (setting.kind !== 'int') continue
    assert.throws(() => loadConfig({ [name]: String(setting.max + 1) }), {
      message: new RegExp(`${name} must be an integer from ${setting.min} to ${setting.max} \\(got "${setting.max + 1}"\\)`),
    })
  }
})
