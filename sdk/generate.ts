import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript'
import prettier from 'prettier'

/** The generated file, from the repository root: committed, so the dashboard and SDK users read types, not a build step. */
export const SCHEMA_FILE = 'sdk/schema.d.ts'

const HEADER = `// Generated from the server's OpenAPI document (/v1/openapi.json) by \`npm run sdk\`: do not edit.
// CI runs \`npm run sdk -- --check\`, which fails when this file differs from what the routes declare.
`

/** The TypeScript types (`paths`, `components`, `operations`) of an OpenAPI document, in the house format. */
export async function renderSchema(document: object): Promise<string> {
  const source = HEADER + astToString(await openapiTS(document as OpenAPI3, { silent: true }))
  return prettier.format(source, { ...(await prettier.resolveConfig(SCHEMA_FILE)), filepath: SCHEMA_FILE })
}
