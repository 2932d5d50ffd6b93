import type { Staging } from '../stats/click-batch.js'
import { newId } from '../shared/ids.js'
import { eventBody, newDelivery } from './events.js'
import type { NewDeliveryRow } from './webhooks.table.js'

// Rows per INSERT (14 values each): far below both dialects' bound-parameter limits.
const CHUNK = 500

/**
 * link.clicked, from the click writer thread, in the transaction that writes the batch (so that a
 * visit and its event commit together): one event per human visit of a link whose owner has an
 * enabled link.clicked endpoint, one delivery per such endpoint. Without any such endpoint (the
 * usual case) this costs one index probe per batch. Runs while `click_batch` holds the batch.
 */
export async function recordClickEvents(staging: Staging, now: number): Promise<number> {
  const subscribers = staging.selectFrom('webhooks').select(['id', 'owner_id']).where('wants_clicks', '=', 1).where('enabled', '=', 1)
  if ((await subscribers.limit(1).executeTakeFirst()) === undefined) return 0
  const clicks = await staging
    .selectFrom('click_batch as c')
    .innerJoin('links as l', 'l.id', 'c.link_id')
    .select(['c.link_id', 'c.clicked_at', 'c.is_qr', 'c.referrer', 'c.browser', 'c.os', 'c.device', 'c.country', 'l.owner_id', 'l.domain', 'l.path'])
    .where('c.is_bot', '=', 0)
    .where('l.deleted_at', 'is', null)
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('webhooks as w').select('w.id').whereRef('w.owner_id', '=', 'l.owner_id').where('w.wants_clicks', '=', 1).where('w.enabled', '=', 1)),
    )
    .execute()
  if (clicks.length === 0) return 0
  const endpoints = new Map<string, string[]>()
  for (const w of await subscribers.where('owner_id', 'in', [...new Set(clicks.map((c) => c.owner_id))]).execute()) {
    endpoints.set(w.owner_id, [...(endpoints.get(w.owner_id) ?? []), w.id])
  }
  const rows: NewDeliveryRow[] = []
  for (const c of clicks) {
    const eventId = newId('evt')
    const payload = eventBody('link.clicked', now, {
      linkId: c.link_id,
      domain: c.domain,
      path: c.path,
      clickedAt: new Date(c.clicked_at).toISOString(),
      qr: c.is_qr === 1,
      referrer: c.referrer,
      browser: c.browser,
      os: c.os,
      device: c.device,
      country: c.country,
    })
    for (const webhookId of endpoints.get(c.owner_id) ?? []) {
      rows.push(newDelivery(webhookId, eventId, 'link.clicked', payload, now))
    }
  }
  for (let i = 0; i < rows.length; i += CHUNK)
    await staging
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + CHUNK))
      .execute()
  return rows.length
}
