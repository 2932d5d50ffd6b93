import { sql, type Kysely } from 'kysely'

/**
 * People, workspaces and roles (docs/accounts.md). Every owner id already in use becomes a workspace
 * of the same id, named after it: no link, token or conversation moves. Tokens holding every scope of
 * their time gain the three new ones, so "all scopes" keeps meaning all of them.
 *
 * Sessions now act either as a token (as before) or as a user in one workspace; the table is rebuilt
 * (SQLite cannot drop a NOT NULL) with its rows kept. Links, domains, webhooks and tokens record who
 * made them; rows from before carry no creator.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  const owners = ['tokens', 'domains', 'links', 'conversations', 'webhooks'].map((table) => sql`select owner_id from ${sql.table(table)}`)
  await sql`insert into workspaces (id, name, created_at)
    select owner_id, owner_id, ${Date.now()} from (${sql.join(owners, sql` union `)}) as owners`.execute(db)

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    // The email as compared (trimmed, lower case): unique whatever the case it was typed in.
    .addColumn('email_key', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    // Null for a person who signs in only through single sign-on.
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'bigint')
    .execute()

  await db.schema
    .createTable('memberships')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['user_id', 'workspace_id'])
    .execute()
  await db.schema.createIndex('memberships_workspace_id').on('memberships').column('workspace_id').execute()

  await db.schema
    .createTable('sessions_next')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_hash', 'text', (c) => c.notNull().unique())
    // Exactly one of token_id and user_id is set: a session opened with a token, or by a person.
    .addColumn('token_id', 'text', (c) => c.references('tokens.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .execute()
  await sql`insert into sessions_next (id, session_hash, token_id, created_at, last_used_at)
    select id, session_hash, token_id, created_at, last_used_at from sessions`.execute(db)
  await db.schema.dropTable('sessions').execute()
  await db.schema.alterTable('sessions_next').renameTo('sessions').execute()
  await db.schema.createIndex('sessions_token_id').on('sessions').column('token_id').execute()
  await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute()

  // A token made by a person holds at most that person's role in its workspace, and ends when they leave.
  await db.schema.alterTable('tokens').addColumn('user_id', 'text').execute()
  await db.schema.alterTable('tokens').addColumn('last_used_at', 'bigint').execute()
  await db.schema.createIndex('tokens_user_id').on('tokens').column('user_id').execute()
  for (const table of ['tokens', 'links', 'domains', 'webhooks']) {
    await db.schema.alterTable(table).addColumn('created_by_type', 'text').execute()
    await db.schema.alterTable(table).addColumn('created_by_id', 'text').execute()
    await db.schema.alterTable(table).addColumn('created_by_label', 'text').execute()
  }

  // Invitations, password resets and the first owner's setup: one-time secrets, stored hashed.
  await db.schema
    .createTable('one_time_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('role', 'text')
    .addColumn('user_id', 'text')
    .addColumn('created_by_type', 'text')
    .addColumn('created_by_id', 'text')
    .addColumn('created_by_label', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute()
  await db.schema.createIndex('one_time_links_workspace').on('one_time_links').columns(['workspace_id', 'kind']).execute()

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('actor_label', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text')
    .execute()
  // Ids are time-ordered (ulid): a workspace's page is one range of this index, newest first.
  await db.schema.createIndex('audit_log_workspace_id').on('audit_log').columns(['workspace_id', 'id']).execute()
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute()

  const all = [
    'links:read',
    'links:write',
    'conversations:read',
    'conversations:write',
    'domains:read',
    'domains:write',
    'tokens:write',
    'webhooks:read',
    'webhooks:write',
  ]
  await sql`update tokens set scopes = scopes || ' members:read members:write audit:read'
    where ${sql.join(
      all.map((s) => sql`(' ' || scopes || ' ') like ${`% ${s} %`}`),
      sql` and `,
    )}`.execute(db)
}
