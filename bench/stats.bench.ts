import { newId } from '../src/shared/ids.js'
import { createRollup } from '../src/stats/click-rollup.js'
import { VisitColumnsBuilder } from '../src/stats/visit-columns.js'
import type { Db } from '../src/storage/database.js'
import { sqliteAdapter } from '../src/storage/dialect.js'
import type { Read } from './reads.js'
import { insertInBatches, linkRow } from './seed.js'

const CLICKS_PER_WRITE = 10_000
const DAY_MS = 86_400_000
const SPREAD_DAYS = 90
const BROWSERS = [
  ['Chrome', 'Windows', 'desktop'],
  ['Mobile Safari', 'iOS', 'mobile'],
  ['Firefox', 'Linux', 'desktop'],
  ['Chrome', 'Android', 'mobile'],
  ['Edge', 'Windows', 'desktop'],
] as const
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'JP', 'BR', 'IN', 'CA', 'NL', 'ES', 'IT', 'SE']

/**
 * One link of `owner` with `count` clicks spread evenly over the last 90 days, written through the
 * click writer's journal and roll-up in large batches (its own transactions: click blocks, daily
 * visitors, rollups and breakdowns), already classified (no User-Agent parsing). Returns the link's id.
 */
export async function seedClicks(db: Db, owner: string, count: number, now: number): Promise<string> {
  const linkId = newId('lnk')
  await insertInBatches(db, 'links', 1, () => ({ id: linkId, ...linkRow(owner, '/stats', 'https://shop.example/stats', 'Stats', now) }))
  const rollup = createRollup(db, sqliteAdapter)
  for (let done = 0; done < count; done += CLICKS_PER_WRITE) {
    const batch = new VisitColumnsBuilder()
    const link = batch.intern(linkId)
    for (let i = done; i < Math.min(count, done + CLICKS_PER_WRITE); i++) {
      const [browser, os, device] = BROWSERS[i % BROWSERS.length] as (typeof BROWSERS)[number]
      const profile = batch.profile({
        bot: i % 20 === 0,
        qr: i % 7 === 0,
        referrer: i % 3 === 0 ? null : `ref${i % 40}.example`,
        browser,
        os,
        device,
        country: COUNTRIES[i % COUNTRIES.length] as string,
      })
      batch.push(link, now - Math.floor(((count - i) / count) * SPREAD_DAYS * DAY_MS), profile, batch.intern(`visitor-${i % 50_000}`))
    }
    const id = await rollup.append('seed', batch.build(), now)
    await rollup.rollUp('seed', new Map([[id, batch.build()]]), Infinity, now, true)
  }
  return linkId
}

/** The statistics of that link over several ranges; the whole history must count every click. */
export function statsReads(linkId: string, count: number, now: number): Read[] {
  const totalClicks = (body: unknown) => (body as { data?: { totalClicks?: number } }).data?.totalClicks ?? 0
  const someClicks = { expected: 'some clicks', accept: (body: unknown) => totalClicks(body) > 0 }
  const path = `/v1/links/${linkId}/stats`
  return [
    { name: 'GET /v1/links/{id}/stats (default: last 30 days by day)', paths: [path], ...someClicks },
    { name: 'GET /v1/links/{id}/stats?interval=hour (last 30 days: 720 buckets)', paths: [`${path}?interval=hour`], ...someClicks },
    {
      name: 'GET /v1/links/{id}/stats?from=… (last 90 days by day)',
      paths: [`${path}?from=${new Date(now - SPREAD_DAYS * DAY_MS).toISOString()}`],
      ...someClicks,
    },
    {
      name: 'GET /v1/links/{id}/stats?from=2020-01-01&interval=month (every click)',
      paths: [`${path}?from=2020-01-01&interval=month`],
      expected: `totalClicks ${count}`,
      accept: (body) => totalClicks(body) === count,
    },
  ]
}
