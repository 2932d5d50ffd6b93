import { sql } from 'kysely'
import type { Db } from '../storage/database.js'
import type { DialectAdapter } from '../storage/dialect.js'
import { repeatedStatement } from '../storage/repeated-statement.js'
import { inTransaction } from '../storage/transaction.js'
import type { DeliveryRow, NewDeliveryRow, NewWebhookRow, WebhookRow, WebhookRowUpdate } from './webhooks.table.js'

// Rows per INSERT (15 values each): far below both dialects' bound-parameter limits.
const CHUNK = 500

/** An owner's enabled endpoints, compiled once (repeatedStatement). */
const enabledOf = repeatedStatement<Pick<WebhookRow, 'owner_id'>, Pick<WebhookRow, 'id' | 'events'>>(['owner_id'], 1, (db, [row]) =>
  db
    .selectFrom('webhooks')
    .select(['id', 'events'])
    .where('owner_id', '=', row?.owner_id ?? '')
    .where('enabled', '=', sql.lit(1)),
)

/** A claimed attempt: the delivery and what the dispatcher needs of its endpoint. */
export interface ClaimedDelivery extends DeliveryRow {
  url: string
  secret: string
}

export function createWebhooksRepository(db: Db, dialect: DialectAdapter) {
  return {
    async insert(row: NewWebhookRow): Promise<void> {
      await db.insertInto('webhooks').values(row).execute()
    },
    findForOwner: (ownerId: string, id: string): Promise<WebhookRow | undefined> =>
      db.selectFrom('webhooks').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst(),
    list: (ownerId: string): Promise<WebhookRow[]> =>
      db.selectFrom('webhooks').selectAll().where('owner_id', '=', ownerId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute(),
    update: (ownerId: string, id: string, changes: WebhookRowUpdate): Promise<WebhookRow | undefined> =>
      db.updateTable('webhooks').set(changes).where('id', '=', id).where('owner_id', '=', ownerId).returningAll().executeTakeFirst(),
    deleteForOwner: (ownerId: string, id: string): Promise<{ id: string } | undefined> =>
      db.deleteFrom('webhooks').where('id', '=', id).where('owner_id', '=', ownerId).returning('id').executeTakeFirst(),

    /** Every endpoint's stored secret: read once at start, to seal those in plain text (secret-key.ts). */
    secrets: (): Promise<Pick<WebhookRow, 'id' | 'secret'>[]> => db.selectFrom('webhooks').select(['id', 'secret']).execute(),
    /** Replaces a stored secret if it is still `from`; tells whether it was. */
    async replaceSecret(id: string, from: string, to: string): Promise<boolean> {
      const r = await db.updateTable('webhooks').set({ secret: to }).where('id', '=', id).where('secret', '=', from).executeTakeFirst()
      return Number(r.numUpdatedRows) > 0
    },

    /** The owner's enabled endpoints (a handful), asked in every change that records an event: the recorder filters them by subscription. */
    enabledFor: (ownerId: string): Promise<Pick<WebhookRow, 'id' | 'events'>[]> => enabledOf(db, [{ owner_id: ownerId }]),

    async insertDeliveries(rows: readonly NewDeliveryRow[]): Promise<void> {
      for (let i = 0; i < rows.length; i += CHUNK)
        await db
          .insertInto('webhook_deliveries')
          .values(rows.slice(i, i + CHUNK))
          .execute()
    },

    /** One page of an endpoint's log, newest first (ids are time-ordered), after the cursor's id. */
    listDeliveries(webhookId: string, startingAfter: string | undefined, limit: number): Promise<DeliveryRow[]> {
      let query = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId)
      if (startingAfter !== undefined) query = query.where('id', '<', startingAfter)
      return query.orderBy('id', 'desc').limit(limit).execute()
    },
    findDelivery: (webhookId: string, id: string): Promise<DeliveryRow | undefined> =>
      db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).where('id', '=', id).executeTakeFirst(),

    /**
     * Puts a settled delivery back in the queue, with a fresh round of attempts, due at `now`. A pending
     * one is left alone: it is queued already, and may be in flight (a second attempt beside it would
     * break "never one attempt twice").
     */
    async requeue(webhookId: string, id: string, now: number): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', attempts: 0, next_attempt_at: now, delivered_at: null })
        .where('webhook_id', '=', webhookId)
        .where('id', '=', id)
        .where('status', '!=', 'pending')
        .execute()
    },

    /**
     * Claims due attempts: at most `perEndpoint(webhookId)` deliveries of each of up to `endpoints`
     * enabled endpoints. Each claimed delivery counts its attempt and is leased until `now + leaseMs`
     * (its next_attempt_at), so that no other instance takes it meanwhile; an instance that dies
     * mid-attempt leaves it due again when the lease ends. The dialect's claimRows makes instances
     * claiming at once take different deliveries.
     */
    claim(now: number, leaseMs: number, endpoints: number, perEndpoint: (webhookId: string) => number): Promise<ClaimedDelivery[]> {
      return inTransaction(db, async (trx) => {
        // Endpoints with something due, one probe of (webhook_id, status, next_attempt_at) each, in a
        // random order: beyond `endpoints` busy endpoints, each gets its turn.
        const due = await trx
          .selectFrom('webhooks as w')
          .select('w.id as webhook_id')
          .where('w.enabled', '=', 1)
          .where(({ exists, selectFrom }) =>
            exists(
              selectFrom('webhook_deliveries as d')
                .select('d.id')
                .whereRef('d.webhook_id', '=', 'w.id')
                .where('d.status', '=', 'pending')
                .where('d.next_attempt_at', '<=', now),
            ),
          )
          .orderBy(sql`random()`)
          .limit(endpoints)
          .execute()
        const ids: string[] = []
        for (const { webhook_id } of due) {
          const room = perEndpoint(webhook_id)
          if (room <= 0) continue
          const query = trx
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('webhook_id', '=', webhook_id)
            .where('status', '=', 'pending')
            .where('next_attempt_at', '<=', now)
            .orderBy('next_attempt_at')
            .limit(room)
          for (const row of await dialect.claimRows(query).execute()) ids.push(row.id)
        }
        if (ids.length === 0) return []
        await trx
          .updateTable('webhook_deliveries')
          .set((eb) => ({ attempts: eb('attempts', '+', 1), last_attempt_at: now, next_attempt_at: now + leaseMs }))
          .where('id', 'in', ids)
          .execute()
        return trx
          .selectFrom('webhook_deliveries as d')
          .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
          .selectAll('d')
          .select(['w.url', 'w.secret'])
          .where('d.id', 'in', ids)
          .execute()
      })
    },

    async settle(id: string, changes: Partial<Omit<DeliveryRow, 'id'>>): Promise<void> {
      await db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute()
    },

    /** A delivered attempt: the delivery settles and its endpoint notes the success, in one commit. */
    settleDelivered: (id: string, webhookId: string, changes: Partial<Omit<DeliveryRow, 'id'>>, now: number): Promise<void> =>
      inTransaction(db, async (trx) => {
        await trx.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute()
        await trx.updateTable('webhooks').set({ last_success_at: now }).where('id', '=', webhookId).execute()
      }),

    /**
     * Disables the endpoint when nothing reached it since `since` (the failed delivery's creation):
     * an endpoint that answered another delivery in between is flaky, not gone. Returns whether it did.
     */
    async disableIfFailingSince(webhookId: string, since: number, reason: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('webhooks')
        .set({ enabled: 0, disabled_reason: reason, updated_at: now })
        .where('id', '=', webhookId)
        .where('enabled', '=', 1)
        .where((eb) => eb.or([eb('last_success_at', 'is', null), eb('last_success_at', '<', since)]))
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },

    /** Pending deliveries (the outbox backlog), for /metrics. */
    backlog: async (): Promise<number> =>
      Number(
        (
          await db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('status', '=', 'pending')
            .executeTakeFirstOrThrow()
        ).n,
      ),

    /** Retention: settled deliveries created before `before`. */
    async prune(before: number): Promise<void> {
      await db.deleteFrom('webhook_deliveries').where('status', '!=', 'pending').where('created_at', '<', before).execute()
    },

    /** Whether any enabled endpoint takes link.clicked (the click writer's cheap first question). */
    anyClickSubscriber: async (): Promise<boolean> =>
      (await db.selectFrom('webhooks').select('id').where('wants_clicks', '=', 1).where('enabled', '=', 1).limit(1).executeTakeFirst()) !== undefined,

    /** The enabled link.clicked endpoints of these owners. */
    clickSubscribers: (ownerIds: string[]): Promise<Pick<WebhookRow, 'id' | 'owner_id'>[]> =>
      ownerIds.length === 0
        ? Promise.resolve([])
        : db
            .selectFrom('webhooks')
            .select(['id', 'owner_id'])
            .where('wants_clicks', '=', 1)
            .where('enabled', '=', 1)
            .where('owner_id', 'in', ownerIds)
            .execute(),
  }
}
export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>
