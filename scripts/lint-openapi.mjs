// `npm run lint:openapi`: lints the OpenAPI document that the server generates (its routes' schemas)
// with Redocly's recommended rules, which also check that every example matches its schema.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../dist/src/app.js'
import { loadConfig } from '../dist/src/config.js'
import { createContainer } from '../dist/src/container.js'

const dir = mkdtempSync(join(tmpdir(), 'linkline-openapi-'))
let status
try {
  const container = createContainer(loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'linkline.db')}`, LOG_LEVEL: 'silent' }))
  await container.start()
  const app = await buildApp(container)
  await app.ready()
  // A fixed place, which .redocly.lint-ignore.yaml names.
  const file = new URL('../dist/openapi.json', import.meta.url).pathname
  writeFileSync(file, JSON.stringify(app.swagger(), null, 2))
  await app.close()
  await container.close()
  const redocly = new URL('../node_modules/@redocly/cli/bin/cli.js', import.meta.url).pathname
  const run = spawnSync(process.execPath, [redocly, 'lint', '--config', new URL('../redocly.yaml', import.meta.url).pathname, file], {
    stdio: 'inherit',
    // No telemetry or update check: CI reaches no host but the package registries.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  })
  status = run.status ?? 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
process.exit(status)
