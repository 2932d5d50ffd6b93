import { sql, type Kysely } from 'kysely'

/**
 * Dashboard sessions (docs/api/sessions-and-dashboard.md#sessions): a session acts as the token it was opened with, so it refers to
 * that token and ends when the token is revoked. Only a hash of the cookie's value is stored.
 * Tokens that held every scope of their time gain `tokens:write`, the scope that manages tokens
 * through the API: "all scopes" keeps meaning all of them for the tokens the operator already has.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_id', 'text', (c) => c.notNull().references('tokens.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('sessions_token_id').on('sessions').column('token_id').execute()
  const all = ['links:read', 'links:write', 'conversations:read', 'conversations:write', 'domains:read', 'domains:write']
  await sql`update tokens set scopes = scopes || ' tokens:write'
    where ${sql.join(
      all.map((s) => sql`(' ' || scopes || ' ') like ${`% ${s} %`}`),
      sql` and `,
    )}`.execute(db)
}
