import { newId } from '../shared/ids.js'
import { chunks } from '../shared/chunks.js'
import { visitsOf, type VisitColumns } from '../stats/visit-columns.js'
import type { Transaction } from '../storage/transaction.js'
import { eventBody, newDelivery } from './events.js'
import type { NewDeliveryRow } from './webhooks.table.js'

// Rows per INSERT (14 values each): far below both dialects' bound-parameter limits.
const CHUNK = 500

/**
 * link.clicked, from the click writer thread, in the transaction that appends the batch to the click
 * journal (so that a visit and its event commit together): one event per human visit of a live link
 * whose owner has an enabled link.clicked endpoint, one delivery per such endpoint. Without any such
 * endpoint (the usual case) this costs one index probe per batch.
 */
export async function recordClickEvents(trx: Transaction, batch: VisitColumns, now: number): Promise<number> {
  const subscribers = trx.selectFrom('webhooks').select(['id', 'owner_id']).where('wants_clicks', '=', 1).where('enabled', '=', 1)
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
  const endpoints = new Map<string, string[]>()
  for (const w of await subscribers.where('owner_id', 'in', [...new Set([...links.values()].map((l) => l.owner_id))]).execute()) {
    endpoints.set(w.owner_id, [...(endpoints.get(w.owner_id) ?? []), w.id])
  }
  const rows: NewDeliveryRow[] = []
  for (const c of human) {
    const link = links.get(c.linkId)
    if (link === undefined) continue
    const eventId = newId('evt')
    const payload = eventBody('link.clicked', now, {
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
    })
    for (const webhookId of endpoints.get(link.owner_id) ?? []) {
      rows.push(newDelivery(webhookId, eventId, 'link.clicked', payload, now))
    }
  }
  for (const part of chunks(rows, CHUNK)) await trx.insertInto('webhook_deliveries').values(part).execute()
  return rows.length
}
