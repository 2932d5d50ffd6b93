import type { Kysely } from 'kysely'

/**
 * A workspace's logo for its QR codes (docs/api/qr-codes.md#logo): at most one per workspace, keyed by
 * the owner id (a workspace made of tokens only has no `workspaces` row, so no foreign key). The image
 * is kept as base64 text, the one binary-safe type both dialects share; `digest` (SHA-256 of the bytes)
 * goes into the ETag of every code that carries the logo.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workspace_logos')
    .addColumn('workspace_id', 'text', (c) => c.primaryKey())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
}
