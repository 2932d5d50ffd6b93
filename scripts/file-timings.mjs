// A test reporter that prints the slowest test files at the end of a run, so that a slow CI is
// traced to the files that make it slow. Each file's time is the span from its first test's start
// to its last test's end, as the runner reports them (files run side by side, so the spans overlap).
export default async function* fileTimings(source) {
  const spans = new Map()
  for await (const event of source) {
    if (event.type !== 'test:complete' || event.data.nesting !== 0 || !event.data.file) continue
    const span = spans.get(event.data.file) ?? { ms: 0, tests: 0 }
    span.ms += event.data.details.duration_ms
    span.tests += 1
    spans.set(event.data.file, span)
  }
  const slowest = [...spans].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15)
  yield '\nslowest test files (seconds of their top-level tests):\n'
  for (const [file, { ms, tests }] of slowest) {
    yield `${(ms / 1000).toFixed(1).padStart(7)}  ${file.replace(/^.*?dist\//, 'dist/')} (${tests})\n`
  }
}
