import { sql } from 'kysely'
import { newId } from '../shared/ids.js'
import { chunks } from '../shared/chunks.js'
import { visitsOf, type VisitColumns } from '../stats/visit-columns.js'
import type { Transaction } from '../storage/transaction.js'
import { CLICK_BATCH, eventBody, newDelivery } from './events.js'
import type { NewDeliveryRow } from './webhooks.table.js'

// Rows per INSERT (14 values each): far below both dialects' bound-parameter limits.
const CHUNK = 500

interface Endpoint {
  readonly id: string
  readonly maxEvents: number | null
  readonly maxWaitMs: number | null
}

/**
 * link.clicked, from the click writer thread, in the transaction that appends the batch to the click
 * journal (so that a visit and its event commit together): one event per human visit of a live link
 * whose owner has an enabled link.clicked endpoint. An endpoint without `batch` gets one delivery per
 * event; a batched one gets the events appended to its open link.clicked.batch delivery (appendToBatches).
 * Without any such endpoint (the usual case) this costs one index probe per batch.
 */
export async function recordClickEvents(trx: Transaction, batch: VisitColumns, now: number): Promise<number> {
  const subscribers = trx
    .selectFrom('webhooks')
    .select(['id', 'owner_id', 'batch_max_events', 'batch_max_wait_ms'])
    .where('wants_clicks', '=', 1)
    .where('enabled', '=', 1)
  if ((await subscribers.limit(1).executeTakeFirst()) === undefined) return 0
  const human = [...visitsOf(batch)].filter((v) => !v.bot)
  const links = new Map<string, { owner_id: string; domain: string; path: string }>()
  for (const ids of chunks([...new Set(human.map((v) => v.linkId))], CHUNK)) {
    const rows = await trx
      .selectFrom('links as l')
      .select(['l.id', 'l.owner_id', 'l.domain', 'l.path'])
      .where('l.id', 'in', ids)
      .where('l.deleted_at', 'is', null)
      .where(({ exists, selectFrom }) =>
        exists(selectFrom('webhooks as w').select('w.id').whereRef('w.owner_id', '=', 'l.owner_id').where('w.wants_clicks', '=', 1).where('w.enabled', '=', 1)),
      )
      .execute()
    for (const r of rows) links.set(r.id, r)
  }
  if (links.size === 0) return 0
  const endpoints = new Map<string, Endpoint[]>()
  for (const w of await subscribers.where('owner_id', 'in', [...new Set([...links.values()].map((l) => l.owner_id))]).execute()) {
    endpoints.set(w.owner_id, [...(endpoints.get(w.owner_id) ?? []), { id: w.id, maxEvents: w.batch_max_events, maxWaitMs: w.batch_max_wait_ms }])
  }
  const rows: NewDeliveryRow[] = []
  const batched = new Map<Endpoint, string[]>()
  for (const c of human) {
    const link = links.get(c.linkId)
    if (link === undefined) continue
    const eventId = newId('evt')
    const data = {
      linkId: c.linkId,
      domain: link.domain,
      path: link.path,
      clickedAt: new Date(c.at).toISOString(),
      qr: c.qr,
      referrer: c.referrer,
      browser: c.browser,
      os: c.os,
      device: c.device,
      country: c.country,
      language: c.language,
      utmSource: c.utmSource,
      utmMedium: c.utmMedium,
      utmCampaign: c.utmCampaign,
      city: c.city,
    }
    let payload: string | undefined
    let line: string | undefined
    for (const endpoint of endpoints.get(link.owner_id) ?? []) {
      if (endpoint.maxEvents === null) {
        payload ??= eventBody('link.clicked', now, data)
        rows.push(newDelivery(endpoint.id, eventId, 'link.clicked', payload, now))
      } else {
        line ??= JSON.stringify({ id: eventId, type: 'link.clicked', timestamp: new Date(now).toISOString(), data })
        const lines = batched.get(endpoint)
        if (lines === undefined) batched.set(endpoint, [line])
        else lines.push(line)
      }
    }
  }
  for (const [endpoint, lines] of batched) rows.push(...(await appendToBatches(trx, endpoint, lines, now)))
  for (const part of chunks(rows, CHUNK)) await trx.insertInto('webhook_deliveries').values(part).execute()
  return rows.length
}

/**
 * Appends events to an endpoint's open batch: the link.clicked.batch delivery not yet attempted whose
 * first event has not waited its maxWaitMs and which has room. A full batch is due at once; the
 * rest go into new batches, each due when full or maxWaitMs after it opened. The UPDATE re-checks
 * that no dispatcher took the batch meanwhile (attempts = 0); if one did, new batches take the events.
 * Returns the new batches, to insert.
 */
async function appendToBatches(trx: Transaction, endpoint: Endpoint, lines: string[], now: number): Promise<NewDeliveryRow[]> {
  const max = endpoint.maxEvents as number
  let rest = lines
  const open = await trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'batch_size'])
    .where('webhook_id', '=', endpoint.id)
    .where('status', '=', 'pending')
    .where('event_type', '=', CLICK_BATCH)
    .where('attempts', '=', 0)
    .where('next_attempt_at', '>', now)
    .where('batch_size', '<', max)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst()
  if (open !== undefined) {
    const taken = rest.slice(0, max - (open.batch_size as number))
    const full = (open.batch_size as number) + taken.length >= max
    const appended = await trx
      .updateTable('webhook_deliveries')
      .set({
        payload: sql<string>`payload || ${`\n${taken.join('\n')}`}`,
        batch_size: sql<number>`batch_size + ${taken.length}`,
        ...(full && { next_attempt_at: now }),
      })
      .where('id', '=', open.id)
      .where('attempts', '=', 0)
      .where('status', '=', 'pending')
      .executeTakeFirst()
    if (Number(appended.numUpdatedRows) > 0) rest = rest.slice(taken.length)
  }
  return chunks(rest, max).map((part) => ({
    ...newDelivery(endpoint.id, newId('evt'), CLICK_BATCH, part.join('\n'), now),
    batch_size: part.length,
    next_attempt_at: part.length >= max ? now : now + (endpoint.maxWaitMs as number),
  }))
}
