import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { newId } from '../src/shared/ids.js'
import { newSecret } from '../src/webhooks/signing.js'
import { median, runLoad, type LoadGenerator } from './load.js'
import { drainClicks, rotationRequests, sample } from './redirect.bench.js'
import type { TargetRow } from './report.js'
import type { Db } from '../src/storage/database.js'
import { insertLinks, linklineEnv, prepareDatabase, redirectLinkRow, redirectLinks, SMALL_OWNER } from './seed.js'
import { startServer, type ServerProcess } from './servers.js'

export interface ClickedWebhookReport {
  rounds: { plain: number; subscribed: number }[]
  plainMedian: number
  subscribedMedian: number
  /** Subscribed over plain, medians of requests per second. */
  ratio: number
  /** Deliveries the receiver got during the run, and the outbox backlog when the load stopped. */
  delivered: number
  backlog: number
}

/**
 * The redirect with and without a `link.clicked` subscriber: two Linkline servers over the same
 * links, one of whose owner has an endpoint taking link.clicked (a local receiver answering 204),
 * loaded alone in alternating order. The events are made by the click writer thread, beside the
 * redirect: the redirect's rate should not move.
 */
export async function benchClickedWebhook(
  settings: { generator: LoadGenerator; links: number; connections: number; seconds: number; warmupSeconds: number; rounds: number },
  workDir: string,
  log: (line: string) => void,
): Promise<ClickedWebhookReport> {
  let delivered = 0
  const receiver = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      delivered++
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/clicks`

  const links = redirectLinks(settings.links)
  const files = { plain: join(workDir, 'webhooks-plain.db'), subscribed: join(workDir, 'webhooks-subscribed.db') }
  for (const [name, file] of Object.entries(files)) {
    await prepareDatabase(file, async (db) => {
      await insertLinks(db, links.length, (i) => redirectLinkRow(links, i))
      if (name === 'subscribed') await insertClickedWebhook(db, receiverUrl)
    })
  }
  const plain = await startLinkline('Linkline', files.plain)
  const subscribed = await startLinkline('Linkline with a link.clicked subscriber', files.subscribed)
  try {
    const requests = rotationRequests(links)
    const measure = async (server: ServerProcess, seconds: number) => {
      const result = await runLoad(settings.generator, { url: server.url, connections: settings.connections, seconds, requests, expect: 302 })
      await drainClicks(server)
      return result.perSecond
    }
    log(`webhooks: warm-up ${settings.warmupSeconds} s each`)
    await measure(plain, settings.warmupSeconds)
    await measure(subscribed, settings.warmupSeconds)
    const rounds: ClickedWebhookReport['rounds'] = []
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? [plain, subscribed] : [subscribed, plain]
      const results = new Map<ServerProcess, number>()
      for (const server of order) results.set(server, await measure(server, settings.seconds))
      rounds.push({ plain: results.get(plain) as number, subscribed: results.get(subscribed) as number })
      log(
        `webhooks round ${round + 1}/${settings.rounds}: plain ${rounds.at(-1)?.plain.toFixed(0)} req/s, with a link.clicked subscriber ${rounds.at(-1)?.subscribed.toFixed(0)} req/s`,
      )
    }
    const backlog = sample(await (await fetch(`${subscribed.url}/metrics`)).text(), 'linkline_webhook_outbox_backlog') ?? NaN
    const plainMedian = median(rounds.map((r) => r.plain))
    const subscribedMedian = median(rounds.map((r) => r.subscribed))
    return { rounds, plainMedian, subscribedMedian, ratio: subscribedMedian / plainMedian, delivered, backlog }
  } finally {
    await Promise.all([plain.stop(), subscribed.stop()])
    receiver.close()
  }
}

/** An endpoint of the links' owner taking link.clicked, at `url`, batched or not. */
async function insertClickedWebhook(db: Db, url: string, batch?: { maxEvents: number; maxWaitMs: number }): Promise<void> {
  const now = Date.now()
  await db
    .insertInto('webhooks')
    .values({
      id: newId('whk'),
      owner_id: SMALL_OWNER,
      url,
      events: 'link.clicked',
      wants_clicks: 1,
      description: 'bench',
      enabled: 1,
      disabled_reason: null,
      secret: `plain:${newSecret()}`,
      batch_max_events: batch?.maxEvents ?? null,
      batch_max_wait_ms: batch?.maxWaitMs ?? null,
      last_success_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute()
}

const startLinkline = (name: string, file: string) =>
  startServer({
    name,
    script: fileURLToPath(new URL('../src/main.js', import.meta.url)),
    env: { ...linklineEnv(file), LINKLINE_FETCH_ALLOW_PRIVATE: 'true' },
  })

export interface BatchedWebhookSettings {
  generator: LoadGenerator
  links: number
  connections: number
  seconds: number
}

/** The part's settings, alone (`--only webhook-batches`) and in the full run alike. */
export const batchedWebhookSettings = (generator: LoadGenerator, quick: boolean): BatchedWebhookSettings => ({
  generator,
  links: 10_000,
  connections: 50,
  seconds: quick ? 5 : 10,
})

export interface BatchedWebhookReport {
  settings: BatchedWebhookSettings
  /** Human visits recorded (each one link.clicked event), and per second of load. */
  visits: number
  visitsPerSecond: number
  /** Events the receiver got, in how many deliveries, and per second from the load's start to the last delivery. */
  eventsDelivered: number
  deliveries: number
  eventsPerSecond: number
  /** From the load's end to the last delivery. */
  drainSeconds: number
  /** The most outbox rows waiting at once (sampled every 250 ms). */
  peakOutboxRows: number
}

/**
 * One endpoint taking link.clicked in batches (maxEvents 1000, maxWaitMs 1000) under a sustained
 * redirect load: how many events per second reach it, and whether the outbox stays bounded (its peak
 * rows) while the receiver keeps up. Every visit is a human one, so each is one event.
 */
export async function benchBatchedWebhook(settings: BatchedWebhookSettings, workDir: string, log: (line: string) => void): Promise<BatchedWebhookReport> {
  let events = 0
  let deliveries = 0
  let last = 0
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      deliveries++
      events += (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { events: unknown[] } }).data.events.length
      last = performance.now()
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/batches`
  const links = redirectLinks(settings.links)
  const file = join(workDir, 'webhooks-batched.db')
  await prepareDatabase(file, async (db) => {
    await insertLinks(db, links.length, (i) => redirectLinkRow(links, i))
    await insertClickedWebhook(db, url, { maxEvents: 1000, maxWaitMs: 1000 })
  })
  const server = await startLinkline('Linkline with a batched link.clicked subscriber', file)
  let peakOutboxRows = 0
  const backlog = async () => sample(await (await fetch(`${server.url}/metrics`)).text(), 'linkline_webhook_outbox_backlog') ?? 0
  const sampler = setInterval(() => void backlog().then((rows) => (peakOutboxRows = Math.max(peakOutboxRows, rows))), 250)
  try {
    log(`webhook batches: ${settings.seconds} s of redirects`)
    const started = performance.now()
    await runLoad(settings.generator, {
      url: server.url,
      connections: settings.connections,
      seconds: settings.seconds,
      requests: rotationRequests(links),
      expect: 302,
    })
    const loaded = performance.now()
    await drainClicks(server)
    const visits = sample(await (await fetch(`${server.url}/metrics`)).text(), 'linkline_clicks_recorded_total') ?? NaN
    for (const deadline = Date.now() + 120_000; Date.now() < deadline && events < visits;) await sleep(100)
    if (events !== visits) throw new Error(`the receiver got ${events} events of ${visits} visits recorded`)
    const seconds = (last - started) / 1000
    log(`webhook batches: ${visits} visits, ${events} events in ${deliveries} deliveries, ${(events / seconds).toFixed(0)} events/s`)
    return {
      settings,
      visits,
      visitsPerSecond: visits / settings.seconds,
      eventsDelivered: events,
      deliveries,
      eventsPerSecond: events / seconds,
      drainSeconds: (last - loaded) / 1000,
      peakOutboxRows,
    }
  } finally {
    clearInterval(sampler)
    await server.stop()
    receiver.close()
  }
}

export function renderBatchedWebhook(r: BatchedWebhookReport): string {
  const int = (value: number) => Math.round(value).toLocaleString('en')
  return [
    '### Webhook batches: one endpoint taking `link.clicked`',
    '',
    `${int(r.settings.links)} links whose owner has one endpoint taking \`link.clicked\` with \`batch: {maxEvents: 1000, maxWaitMs: 1000}\` ` +
      `(a local receiver answering 204), loaded with browser visits from ${r.settings.connections} connections for ${r.settings.seconds} s ` +
      `(${r.settings.generator}), then drained. Events per second run from the load's start to the last delivery; the outbox's rows are sampled every 250 ms.`,
    '',
    '| visits recorded | events received | deliveries | events/s | drain after the load | outbox peak rows |',
    '|---|---|---|---|---|---|',
    `| ${int(r.visits)} (${int(r.visitsPerSecond)}/s) | ${int(r.eventsDelivered)} | ${int(r.deliveries)} | ${int(r.eventsPerSecond)} | ` +
      `${r.drainSeconds.toFixed(1)} s | ${int(r.peakOutboxRows)} |`,
    '',
  ].join('\n')
}

/** Every visit is one event (the bench throws otherwise): the rate is the target, the outbox's peak beside it. */
export const batchedWebhookTargets = (r: BatchedWebhookReport): TargetRow[] => [
  {
    target: 'one webhook endpoint takes ≥ 5,000 `link.clicked` events/s through batched deliveries',
    measured: `${Math.round(r.eventsPerSecond).toLocaleString('en')} events/s; outbox peak ${Math.round(r.peakOutboxRows).toLocaleString('en')} rows`,
    met: r.eventsPerSecond >= 5000,
  },
]
