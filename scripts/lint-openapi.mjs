// `npm run lint:openapi`: lints the OpenAPI document that the server generates (its routes' schemas)
// with Redocly's recommended rules, which also check that every example matches its schema.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { openapiDocument } from './openapi-document.mjs'

// A fixed place, which .redocly.lint-ignore.yaml names.
const file = new URL('../dist/openapi.json', import.meta.url).pathname
writeFileSync(file, JSON.stringify(await openapiDocument(), null, 2))
const redocly = new URL('../node_modules/@redocly/cli/bin/cli.js', import.meta.url).pathname
const run = spawnSync(process.execPath, [redocly, 'lint', '--config', new URL('../redocly.yaml', import.meta.url).pathname, file], {
  stdio: 'inherit',
  // No telemetry or update check: CI reaches no host but the package registries.
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
})
process.exit(run.status ?? 1)
