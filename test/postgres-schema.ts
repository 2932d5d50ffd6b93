import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export interface PostgresSchema {
  /** The schema's name: `<prefix>_<random hex>`. */
  readonly name: string
  /** The admin URL with the schema as `search_path`: a server on it sees only this schema's tables. */
  readonly url: string
  /** A folder for the files a server keeps beside its data (the webhook secret key), out of the working directory. */
  readonly dataDir: string
  /** Drops the schema and removes the folder. */
  drop(): Promise<void>
}

/** A fresh schema on the PostgreSQL server of `adminUrl`, for one test server or one bench database. */
export async function createPostgresSchema(adminUrl: string, prefix: string): Promise<PostgresSchema> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  await asAdmin(adminUrl, `create schema ${name}`)
  const url = new URL(adminUrl)
  url.searchParams.set('options', `-c search_path=${name}`)
  const dataDir = mkdtempSync(join(tmpdir(), `linkline-${prefix}-data-`))
  return {
    name,
    url: url.href,
    dataDir,
    drop: async () => {
      rmSync(dataDir, { recursive: true, force: true })
      await asAdmin(adminUrl, `drop schema ${name} cascade`)
    },
  }
}

async function asAdmin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}
