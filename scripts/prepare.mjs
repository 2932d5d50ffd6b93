// npm's `prepare` step: builds dist/ when TypeScript is installed (`npm ci`), and otherwise (`npm ci
// --omit=dev`, a production install) checks that a build is there, with a clear way out if not:
// TypeScript is a development dependency, so a production install cannot build by itself.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'

let typescript = true
try {
  createRequire(import.meta.url).resolve('typescript/package.json')
} catch {
  typescript = false
}

if (typescript) {
  const npm = process.env.npm_execpath
  const run = npm ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' }) : spawnSync('npm', ['run', 'build'], { stdio: 'inherit' })
  process.exit(run.status ?? 1)
}
if (!existsSync(new URL('../dist/src/main.js', import.meta.url))) {
  console.error(`
linkline: there is no build (dist/) and TypeScript is not installed to make one, as after
\`npm ci --omit=dev\` in a fresh checkout. Install for production with:

    npm ci && npm prune --omit=dev

(\`npm ci\` builds dist/, \`npm prune\` then removes the development dependencies; docs/operations.md).
`)
  process.exit(1)
}
