import type { Kysely } from 'kysely'

/** Tokens may expire (docs/api/tokens.md#expiry): `expires_at` in epoch ms, null for a token that never does. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('expires_at', 'bigint').execute()
}
