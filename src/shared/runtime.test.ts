import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { test } from 'node:test'
import { CLI, MAIN, ROOT } from '../../test/process.js'
import { unsupportedRuntime } from './runtime.js'

// semver (what npm reads `engines` with) comes without types; this test needs one function of it.
const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean }

test('the runtime rule is package.json engines, release by release', () => {
  const engines = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { engines: { node: string } }).engines.node
  for (const major of [18, 20, 21, 22, 23, 24, 25, 26, 27])
    for (const minor of [0, 12, 13, 14, 15, 30]) {
      const version = `${major}.${minor}.1`
      assert.equal(unsupportedRuntime(version) === undefined, semver.satisfies(version, engines), version)
    }
  assert.equal(unsupportedRuntime('20.20.2'), 'Node.js 20.20.2 is not supported: run Linkline on Node.js 22 (22.14 or newer), 24 or 26')
})

test('on an unsupported Node.js, the server and the CLI say so in one line before loading the SQLite driver', () => {
  // Node 20 crashed with a bare "Segmentation fault" once the driver's native module ran. Here the
  // release is faked before the entry point loads; the driver would load fine on this runtime, so a
  // start that got as far as the database would print its log and listen instead of this line.
  const fake = "Object.defineProperty(process.versions, 'node', { value: '20.20.2' })"
  for (const script of [MAIN, CLI]) {
    const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(fake)}`, script, 'tokens', 'list'], {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: 'sqlite:/nonexistent/linkline.db', PORT: '1' },
      timeout: 30_000,
    })
    assert.equal(r.status, 1, `${script}: ${r.stderr}`)
    assert.equal(r.stderr, 'linkline: Node.js 20.20.2 is not supported: run Linkline on Node.js 22 (22.14 or newer), 24 or 26\n')
    assert.equal(r.stdout, '')
  }
})
