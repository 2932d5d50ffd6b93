// Runs every compiled test file with Node's test runner, and says clearly which backends are skipped.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

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
// Test files run side by side: at least two, as Node's own default (one fewer than the CPUs) runs them
// one at a time on a 2-CPU machine, where most of the run waits on servers, browsers and timers (9.3 ->
// 6.0 min there). Each file's servers have their own port, database or schema, and Redis prefix.
// A test that hangs fails after ten minutes (--test-timeout); a file whose tests are over exits even if
// something it started is still open (--test-force-exit), instead of holding the run until CI's time is out.
const concurrency = Math.max(2, availableParallelism() - 1)
const args = [
  '--test',
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  `--test-reporter=${fileURLToPath(new URL('file-timings.mjs', import.meta.url))}`,
  '--test-reporter-destination=stdout',
  '--test-timeout=600000',
  '--test-force-exit',
  `--test-concurrency=${concurrency}`,
  ...process.argv.slice(2),
  ...files,
]
const timingsDir = mkdtempSync(join(tmpdir(), 'linkline-tests-'))
const timings = join(timingsDir, 'timings.ndjson')
// Every test file is a process that loads the app, and many start servers and the CLI as processes of
// their own: Node's compile cache (checked against each file's source) keeps them from compiling the
// same modules again, ~0.4 s of CPU per process. test/process.ts passes it on to the processes it starts.
// Not under coverage (c8 sets NODE_V8_COVERAGE): functions read from the cache are measured less precisely.
const compileCache = process.env.NODE_V8_COVERAGE ? {} : { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'linkline-compile-cache') }
const env = { ...process.env, LINKLINE_TEST_TIMINGS: timings, ...compileCache }
const result = spawnSync(process.execPath, args, { stdio: 'inherit', env })
// The slowest files, so that a run that grows slow is traced to what makes it slow.
try {
  const spans = readFileSync(timings, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  console.log('\nslowest test files (seconds; files run side by side):')
  for (const { file, ms } of spans.sort((a, b) => b.ms - a.ms).slice(0, 15)) console.log(`${(ms / 1000).toFixed(1).padStart(7)}  ${file}`)
} catch {
  console.log('\nno test file timings were recorded')
}
rmSync(timingsDir, { force: true, recursive: true })
process.exit(result.status ?? 1)
