// Checks, from package-lock.json, that every dependency (development tools included) declares support
// for the oldest Node.js release of each line that package.json's `engines` promises (22.14.0 and 24.0.0
// for "^22.14.0 || >=24"). CI runs the newest release of each line, where npm's own EBADENGINE warning
// cannot see a dependency that has left the oldest one behind.
import { readFileSync } from 'node:fs'
import semver from 'semver'

const pkg = JSON.parse(readFileSync('package.json', 'utf8'))
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'))
const floors = pkg.engines.node.split('||').map((range) => semver.minVersion(range).version)

const problems = []
for (const [path, entry] of Object.entries(lock.packages)) {
  const range = entry.engines?.node
  if (path === '' || typeof range !== 'string') continue
  for (const floor of floors) {
    if (!semver.satisfies(floor, range)) {
      problems.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} needs node ${range}, not ${floor}`)
    }
  }
}
if (problems.length > 0) {
  console.error(`FAIL: dependencies that do not support on every Node.js that engines promises (${pkg.engines.node}):`)
  for (const problem of problems) console.error(`  ${problem}`)
  process.exit(1)
}
console.log(`engines: every dependency supports node ${floors.join(' and ')} (${pkg.engines.node})`)
