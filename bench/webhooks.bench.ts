import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { newId } from '../src/shared/ids.js'
import { newSecret } from '../src/webhooks/signing.js'
import { median, runLoad, type LoadGenerator } from './load.js'
import { drainClicks, rotationRequests, sample } from './redirect.bench.js'
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
      if (name === 'subscribed') {
        const now = Date.now()
        await db
          .insertInto('webhooks')
          .values({
            id: newId('whk'),
            owner_id: SMALL_OWNER,
            url: receiverUrl,
            events: 'link.clicked',
            wants_clicks: 1,
            description: 'bench',
            enabled: 1,
            disabled_reason: null,
            secret: `plain:${newSecret()}`,
            last_success_at: null,
            created_at: now,
            updated_at: now,
          })
          .execute()
      }
    })
  }
  const start = (name: string, file: string) =>
    startServer({
      name,
      script: fileURLToPath(new URL('../src/main.js', import.meta.url)),
      env: { ...linklineEnv(file), LINKLINE_WEBHOOKS_ALLOW_PRIVATE: 'true' },
    })
  const plain = await start('Linkline', files.plain)
  const subscribed = await start('Linkline with a link.clicked subscriber', files.subscribed)
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
