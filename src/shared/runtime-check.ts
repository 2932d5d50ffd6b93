import { unsupportedRuntime } from './runtime.js'

// Imported first by every entry point (the server and the CLI): modules are evaluated in the order
// they are imported, so this runs before any module loads the SQLite driver's native code.
const problem = unsupportedRuntime(process.versions.node)
if (problem !== undefined) {
  process.stderr.write(`linkline: ${problem}\n`)
  process.exit(1)
}
