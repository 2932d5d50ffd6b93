// Runs every compiled test file with Node's test runner, and says clearly which backends are skipped.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const files = []
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) walk(path)
    else if (entry.name.endsWith('.test.js')) files.push(path)
  }
}
walk('dist')
files.sort()

if (!process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL) {
  // `.ci/run` sets this: our CI must never skip them. Elsewhere (a contributor's machine, another CI
  // without the services) the suite runs on SQLite and says so.
  if (process.env.LINKLINE_TEST_REQUIRE_ALL_BACKENDS === '1') {
    console.error('FAIL: the PostgreSQL + Redis suites must run here: set TEST_DATABASE_URL and TEST_REDIS_URL (`.ci/run` does).')
    process.exit(1)
  }
  console.log(
    'NOTE: TEST_DATABASE_URL and/or TEST_REDIS_URL are not set: the PostgreSQL + Redis runs of the integration ' +
      'suite are SKIPPED; every suite runs on SQLite only. `.ci/run` sets both.',
  )
}
// A test file that hangs (a server left open, a lost promise) fails after ten minutes instead of stalling
// CI. The timeout applies to each file as a whole: the CLI suite alone takes two minutes on a loaded machine.
const args = ['--test', '--test-reporter=spec', '--test-timeout=600000', ...process.argv.slice(2), ...files]
const result = spawnSync(process.execPath, args, { stdio: 'inherit' })
process.exit(result.status ?? 1)
