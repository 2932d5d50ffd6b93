// Runs every compiled test file with Node's test runner, and says clearly which backends are skipped.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
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
// Test files named on the command line run alone (`node scripts/run-tests.mjs dist/src/x.test.js`);
// other arguments go to Node's test runner (`--test-name-pattern=…`).
const named = process.argv.slice(2).filter((arg) => arg.endsWith('.test.js'))
const options = process.argv.slice(2).filter((arg) => !arg.endsWith('.test.js'))

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
const concurrency = Number(process.env.LINKLINE_TEST_CONCURRENCY) || Math.max(2, availableParallelism() - 1)
const args = [
  '--test',
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  `--test-reporter=${fileURLToPath(new URL('file-timings.mjs', import.meta.url))}`,
  '--test-reporter-destination=stdout',
  '--test-timeout=600000',
  '--test-force-exit',
  `--test-concurrency=${concurrency}`,
  `--import=${new URL('file-cpu.mjs', import.meta.url)}`,
  ...options,
  ...(named.length > 0 ? named : files),
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
// The slowest files, so that a run that grows slow is traced to what makes it slow: wall time, and the
// CPU time of the file's process with the processes it started (scripts/file-cpu.mjs). A file far
// slower than its CPU time waits on something while it holds one of the run's slots.
try {
  const lines = readFileSync(timings, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  const cpu = new Map(lines.filter((l) => l.path).map((l) => [l.path, l.cpuMs]))
  const spans = lines.filter((l) => l.file).map((l) => ({ ...l, cpuMs: cpu.get(resolve(l.file)) }))
  const s = (ms) => (ms === undefined ? '?' : (ms / 1000).toFixed(1)).padStart(7)
  const total = (key) => spans.reduce((sum, span) => sum + (span[key] ?? 0), 0)
  console.log(`\ntest files: ${s(total('ms'))} s of wall time, ${s(total('cpuMs'))} s of CPU time (summed over files)`)
  console.log('slowest test files (seconds of wall and CPU time; files run side by side):')
  for (const { file, ms, cpuMs } of spans.sort((a, b) => b.ms - a.ms).slice(0, Number(process.env.LINKLINE_TEST_SLOWEST ?? 15))) {
    console.log(`${s(ms)} ${s(cpuMs)}  ${file}`)
  }
} catch {
  console.log('\nno test file timings were recorded')
}
rmSync(timingsDir, { force: true, recursive: true })
process.exit(result.status ?? 1)
