// `npm run sdk`: writes sdk/schema.d.ts, the types of the OpenAPI document the server generates
// (compiled: the npm script builds first). With --check it writes nothing and fails when the file differs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { renderSchema, SCHEMA_FILE } from '../dist/sdk/generate.js'
import { openapiDocument } from './openapi-document.mjs'

const check = process.argv.includes('--check')
const generated = await renderSchema(await openapiDocument())
const current = existsSync(SCHEMA_FILE) ? readFileSync(SCHEMA_FILE, 'utf8') : ''
if (generated === current) {
  console.log(`sdk: ${SCHEMA_FILE} is up to date`)
} else if (check) {
  console.error(`FAIL: ${SCHEMA_FILE} differs from the server's OpenAPI document: run npm run sdk`)
  process.exit(1)
} else {
  writeFileSync(SCHEMA_FILE, generated)
  console.log(`sdk: wrote ${SCHEMA_FILE}`)
}
