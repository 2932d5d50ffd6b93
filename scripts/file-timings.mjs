// A test reporter that notes how long each test file ran, one JSON line per file appended to the file
// named by LINKLINE_TEST_TIMINGS, as soon as the file is over: the run ends with --test-force-exit,
// which would cut off anything a reporter kept for its end. scripts/run-tests.mjs prints the slowest.
import { appendFileSync } from 'node:fs'
import { Transform } from 'node:stream'

export default new Transform({
  writableObjectMode: true,
  transform(event, _encoding, done) {
    const { nesting, file, name, details } = event.data ?? {}
    // The runner reports each file as a whole under the file's own path, once its process is over.
    if (event.type === 'test:complete' && nesting === 0 && file?.endsWith(name)) {
      appendFileSync(process.env.LINKLINE_TEST_TIMINGS, `${JSON.stringify({ file: name, ms: details.duration_ms })}\n`)
    }
    done()
  },
})
