// Writes the settings tables of README.md and docs/operations.md from src/config/settings.ts (compiled:
// `npm run docs:settings` builds first). With --check it writes nothing and fails when a file differs.
import { readFileSync, writeFileSync } from 'node:fs'
import { GENERATED, withSettings } from '../dist/src/config/settings-docs.js'

const check = process.argv.includes('--check')
const stale = []
for (const path of Object.keys(GENERATED)) {
  const content = readFileSync(path, 'utf8')
  const updated = withSettings(path, content)
  if (updated === content) continue
  stale.push(path)
  if (!check) writeFileSync(path, updated)
}
if (check && stale.length > 0) {
  console.error(`FAIL: the settings tables of ${stale.join(' and ')} differ from src/config/settings.ts: run npm run docs:settings`)
  process.exit(1)
}
console.log(check ? 'settings docs: up to date' : `settings docs: ${stale.length === 0 ? 'unchanged' : `wrote ${stale.join(', ')}`}`)
