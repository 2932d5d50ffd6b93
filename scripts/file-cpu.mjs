// Loaded into every test file's process (`--import`, from scripts/run-tests.mjs): when the file's
// process exits, notes the CPU time it spent, with the processes it started and has reaped (servers,
// the CLI, browsers), beside the wall time that scripts/file-timings.mjs notes. A file whose wall time
// is far above its CPU time waits (timers, leases, retries) while it holds one of the run's slots.
// PostgreSQL's and Redis's own CPU time is not counted: they are not the file's children.
import { appendFileSync, readFileSync } from 'node:fs'

const out = process.env.LINKLINE_TEST_TIMINGS
// The test runner marks the processes it starts for files; the runner itself loads this too.
if (out && process.env.NODE_TEST_CONTEXT?.startsWith('child')) {
  process.once('exit', () => {
    try {
      // utime, stime, cutime, cstime: fields 14 to 17, counted after the command name in parentheses.
      const stat = readFileSync('/proc/self/stat', 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const ticks = fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0)
      appendFileSync(out, `${JSON.stringify({ path: process.argv[1], cpuMs: ticks * 10 })}\n`)
    } catch {
      // not Linux: no CPU time, the wall time is still noted
    }
  })
}
