// The OpenAPI document the server generates from its routes' schemas, built here without listening:
// the app over a throwaway SQLite database (needs dist/, so the callers build first).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../dist/src/app.js'
import { loadConfig } from '../dist/src/config.js'
import { createContainer } from '../dist/src/container.js'

export async function openapiDocument() {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-openapi-'))
  try {
    const container = createContainer(loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'linkline.db')}`, LOG_LEVEL: 'silent' }))
    await container.start()
    try {
      const app = await buildApp(container)
      await app.ready()
      const document = app.swagger()
      await app.close()
      return document
    } finally {
      await container.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
