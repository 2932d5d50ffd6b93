// Fails when a production dependency (direct or transitive) is under a licence outside the allow-list:
// Linkline is MIT, and a copyleft dependency (ua-parser-js 2.x is AGPL-3.0) would change what users may do.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const ALLOWED = new Set(['MIT', 'MIT-0', 'ISC', 'BSD-2-Clause', 'BSD-3-Clause', 'Apache-2.0', '0BSD', 'BlueOak-1.0.0', 'CC0-1.0', 'Unlicense', 'Python-2.0'])

/** An SPDX expression is allowed when every alternative of an OR, or every part of an AND, is. */
const allowed = (expression) => {
  const bare = expression.replace(/[()]/g, '').trim()
  if (bare.includes(' OR ')) return bare.split(' OR ').some((part) => allowed(part))
  if (bare.includes(' AND ')) return bare.split(' AND ').every((part) => allowed(part))
  return ALLOWED.has(bare)
}

const paths = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { encoding: 'utf8' }).trim().split('\n').slice(1)
const refused = []
for (const path of new Set(paths)) {
  const { name, version, license } = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'))
  const expression = typeof license === 'string' ? license : (license?.type ?? 'UNKNOWN')
  if (!allowed(expression)) refused.push(`${name}@${version}: ${expression}`)
}
if (refused.length > 0) {
  console.error(`FAIL: production dependencies outside the licence allow-list (${[...ALLOWED].join(', ')}):\n  ${refused.join('\n  ')}`)
  process.exit(1)
}
console.log(`licences: ${new Set(paths).size} production packages, all within the allow-list`)
