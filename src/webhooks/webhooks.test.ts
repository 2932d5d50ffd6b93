import assert from 'node:assert/strict'
import { isIP } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { startReceiver, type Receiver } from '../../test/webhook-receiver.js'
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from './dispatcher.js'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'
const HOUR = 3_600_000

type DeliveryLog = {
  id: string
  eventId: string
  eventType: string
  status: string
  attempts: number
  lastError: string | null
  lastAttemptAt: string | null
  nextAttemptAt: string | null
  lastStatusCode: number | null
  delivered: boolean
  responseExcerpt: string | null
}[]
const deliveries = async (s: TestServer, id: string) => (await s.request('GET', `/v1/webhooks/${id}/deliveries?limit=100`)).body.data as DeliveryLog
/** The endpoint's delivery log once `predicate` holds (deliveries are asynchronous), polled for up to 30 s. */
const waitForLog = async (s: TestServer, id: string, predicate: (log: DeliveryLog) => boolean) => {
  for (let i = 0; i < 1500; i++) {
    const log = await deliveries(s, id)
    if (predicate(log)) return log
    await sleep(20)
  }
  throw new Error(`the delivery log never matched: ${JSON.stringify(await deliveries(s, id))}`)
}

for (const backend of backends) {
  describe(`webhooks (${backend})`, () => {
    let s: TestServer
    let r: Receiver
    let offset = 0
    const clock = { now: () => Date.now() + offset }
    before(async () => {
      r = await startReceiver()
      s = await startTestServer({
        backend,
        env: {
          LINKLINE_WEBHOOKS_ALLOW_PRIVATE: 'true',
          LINKLINE_WEBHOOKS_POLL_INTERVAL_MS: '20',
          LINKLINE_CLICK_FLUSH_INTERVAL_MS: '20',
          LINKLINE_WEBHOOKS_SECRET_KEY: 'test-key-0123456789-0123456789-0123456789',
        },
        container: { clock },
      })
    })
    after(async () => {
      await s.close()
      await r.close()
    })

    const createHook = async (path: string, events: string[], token = s.token) => {
      const created = await s.request('POST', '/v1/webhooks', { json: { url: r.url(path), events, description: path }, token })
      assert.equal(created.status, 201, created.text)
      return created.body.data as { id: string; secret: string; url: string; events: string[]; enabled: boolean }
    }
    test('an endpoint is created with a secret shown once, read, updated, listed and deleted; scopes and owners are kept apart', async () => {
      const hook = await createHook('/crud', ['link.created', 'link.created', 'message.created'])
      assert.match(hook.id, /^whk_/)
      assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      assert.ok(Buffer.from(hook.secret.slice(6), 'base64').length >= 24)
      assert.deepEqual(hook.events, ['link.created', 'message.created'])
      const read = await s.request('GET', `/v1/webhooks/${hook.id}`)
      assert.equal(read.status, 200)
      assert.equal(read.body.data.secret, undefined)
      assert.equal(read.body.data.batch, null, 'one event per delivery unless asked')
      assert.deepEqual(Object.keys(read.body.data).sort(), [
        'batch',
        'createdAt',
        'createdBy',
        'description',
        'disabledReason',
        'enabled',
        'events',
        'id',
        'updatedAt',
        'url',
      ])
      assert.ok(!JSON.stringify((await s.request('GET', '/v1/webhooks')).body).includes(hook.secret))
      const updated = await s.request('PATCH', `/v1/webhooks/${hook.id}`, { json: { events: ['*'], enabled: false, description: null } })
      assert.equal(updated.status, 200, updated.text)
      assert.deepEqual([updated.body.data.events, updated.body.data.enabled, updated.body.data.description], [['*'], false, null])

      const bob = await s.createToken('bob')
      assert.equal((await s.request('GET', `/v1/webhooks/${hook.id}`, { token: bob })).status, 404)
      assert.equal((await s.request('DELETE', `/v1/webhooks/${hook.id}`, { token: bob })).status, 404)
      assert.deepEqual((await s.request('GET', '/v1/webhooks', { token: bob })).body.data, [])
      const linksOnly = await s.createToken('alice', ['links:read', 'links:write'])
      const forbidden = await s.request('GET', '/v1/webhooks', { token: linksOnly })
      assert.equal(forbidden.status, 403)
      assert.equal(forbidden.body.error.code, 'forbidden')
      const readOnly = await s.createToken('alice', ['webhooks:read'])
      assert.equal((await s.request('GET', '/v1/webhooks', { token: readOnly })).status, 200)
      assert.equal((await s.request('POST', '/v1/webhooks', { token: readOnly, json: { url: r.url('/x'), events: ['*'] } })).status, 403)

      for (const [body, param] of [
        [{ url: 'ftp://hooks.example/', events: ['*'] }, 'url'],
        [{ url: 'not a url', events: ['*'] }, 'url'],
        [{ url: 'https://user:pw@hooks.example/', events: ['*'] }, 'url'],
        [{ url: 'https://hooks.example/', events: ['link.exploded'] }, 'events[0]'],
        [{ url: 'https://hooks.example/', events: [] }, 'events'],
        [{ url: 'https://hooks.example/' }, 'events'],
        [{ url: 'https://hooks.example/', events: ['*'], secret: 'mine' }, 'secret'],
      ] as const) {
        const refused = await s.request('POST', '/v1/webhooks', { json: body })
        assert.equal(refused.status, 400, JSON.stringify(body))
        assert.equal(refused.body.error.param, param, JSON.stringify(body))
      }
      assert.deepEqual((await s.request('DELETE', `/v1/webhooks/${hook.id}`)).body, { success: true, data: { id: hook.id, deleted: true } })
      assert.equal((await s.request('GET', `/v1/webhooks/${hook.id}`)).status, 404)
    })

    test('link.created is delivered signed: standardwebhooks verifies it, and refuses a tampered body and an old timestamp', async () => {
      const hook = await createHook('/signed', ['link.created'])
      const created = await s.request('POST', '/v1/links', { json: { destination: 'https://dest.example/signed', title: 'Signed' } })
      assert.equal(created.status, 201)
      const [got] = (await r.waitFor((all) => all.some((x) => x.path === '/signed'))).filter((x) => x.path === '/signed')
      assert.ok(got)
      assert.equal(got.headers['content-type'], 'application/json')
      const headers = {
        'webhook-id': got.headers['webhook-id'] as string,
        'webhook-timestamp': got.headers['webhook-timestamp'] as string,
        'webhook-signature': got.headers['webhook-signature'] as string,
      }
      const verifier = new Webhook(hook.secret)
      const event = verifier.verify(got.body, headers) as { type: string; timestamp: string; data: unknown }
      assert.equal(event.type, 'link.created')
      assert.match(event.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      assert.deepEqual(event.data, created.body.data)
      assert.match(headers['webhook-id'], /^evt_/)
      assert.throws(() => verifier.verify(got.body.replace('Signed', 'Signet'), headers), /signature/i)
      assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got.body, headers), /signature/i)
      // The same body and signature scheme, an hour old: a replay, refused by the verifier's tolerance.
      const old = new Date(Date.now() - HOUR)
      const oldHeaders = {
        ...headers,
        'webhook-timestamp': String(Math.floor(old.getTime() / 1000)),
        'webhook-signature': verifier.sign(headers['webhook-id'], old, got.body),
      }
      assert.throws(() => verifier.verify(got.body, oldHeaders), /timestamp/i)

      const log = await waitForLog(s, hook.id, (l) => l[0]?.status === 'delivered')
      assert.equal(log.length, 1)
      assert.deepEqual(
        [log[0]?.eventId, log[0]?.eventType, log[0]?.attempts, log[0]?.lastStatusCode, log[0]?.delivered],
        [headers['webhook-id'], 'link.created', 1, 200, true],
      )
    })

    test('every event of the list reaches the endpoints that take it, and only those', async () => {
      const all = await createHook('/all', ['*'])
      const messages = await createHook('/messages', ['message.created', 'message.deleted'])
      const link = (await s.request('POST', '/v1/links', { json: { destination: 'https://dest.example/all' } })).body.data
      await s.request('PATCH', `/v1/links/${link.id}`, { json: { title: 'renamed' } })
      const conv = (await s.request('POST', '/v1/conversations', { json: { contact_id: 'c-events' } })).body
      await s.request('PATCH', `/v1/conversations/${conv.id}`, { json: { is_muted: true } })
      const message = (await s.request('POST', `/v1/conversations/${conv.id}/messages`, { json: { text: 'hi' } })).body
      await s.request('DELETE', `/v1/conversations/${conv.id}/messages/${message.id}`)
      await s.request('DELETE', `/v1/conversations/${conv.id}`)
      await s.request('DELETE', `/v1/links/${link.id}`)
      const expected = [
        'link.created',
        'link.updated',
        'conversation.created',
        'conversation.updated',
        'message.created',
        'message.deleted',
        'conversation.deleted',
        'link.deleted',
      ]
      const got = await r.waitFor((x) => x.filter((e) => e.path === '/all').length >= expected.length)
      assert.deepEqual(
        got
          .filter((e) => e.path === '/all')
          .map((e) => e.json.type)
          .sort(),
        [...expected].sort(),
      )
      const byType = Object.fromEntries(got.filter((e) => e.path === '/all').map((e) => [e.json.type, e.json.data]))
      assert.equal(byType['link.updated'].title, 'renamed')
      assert.equal(byType['conversation.updated'].is_muted, true)
      assert.deepEqual(byType['message.created'], message)
      assert.deepEqual(byType['link.deleted'].id, link.id)
      await r.waitFor((x) => x.filter((e) => e.path === '/messages').length >= 2)
      assert.deepEqual(
        r.received
          .filter((e) => e.path === '/messages')
          .map((e) => e.json.type)
          .sort(),
        ['message.created', 'message.deleted'],
      )
      await waitForLog(s, all.id, (l) => l.length === expected.length && l.every((d) => d.delivered))
      await waitForLog(s, messages.id, (l) => l.length === 2)
    })

    test('a batched endpoint gets its link.clicked events together, signed, when full or after maxWaitMs; other events one by one', async () => {
      const refused = async (batch: unknown, param: string) => {
        const r = await s.request('POST', '/v1/webhooks', { json: { url: 'https://hooks.example/x', events: ['link.clicked'], batch } })
        assert.deepEqual([r.status, r.body.error?.param], [400, param], JSON.stringify(batch))
      }
      await refused({ maxEvents: 0, maxWaitMs: 1000 }, 'batch[maxEvents]')
      await refused({ maxEvents: 1001, maxWaitMs: 1000 }, 'batch[maxEvents]')
      await refused({ maxEvents: 10, maxWaitMs: 99 }, 'batch[maxWaitMs]')
      await refused({ maxEvents: 10, maxWaitMs: 60_001 }, 'batch[maxWaitMs]')
      await refused({ maxEvents: 10 }, 'batch[maxWaitMs]')
      await refused({ maxEvents: 10, maxWaitMs: 1000, size: 1 }, 'batch[size]')

      const created = await s.request('POST', '/v1/webhooks', {
        json: { url: r.url('/batched'), events: ['link.clicked', 'link.created'], batch: { maxEvents: 3, maxWaitMs: 1500 } },
      })
      assert.equal(created.status, 201, created.text)
      const hook = created.body.data as { id: string; secret: string; batch: unknown }
      assert.deepEqual(hook.batch, { maxEvents: 3, maxWaitMs: 1500 })
      assert.deepEqual((await s.request('GET', `/v1/webhooks/${hook.id}`)).body.data.batch, { maxEvents: 3, maxWaitMs: 1500 })
      const link = (await s.request('POST', '/v1/links', { json: { destination: 'https://dest.example/batched', path: '/batched' } })).body.data
      for (let i = 0; i < 4; i++) assert.equal((await s.request('GET', '/batched', { token: null, headers: { 'user-agent': CHROME } })).status, 302)
      await s.request('GET', '/batched', { token: null, headers: { 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' } })
      const batches = () => r.received.filter((x) => x.path === '/batched' && x.json.type === 'link.clicked.batch')
      await r.waitFor(() => batches().length === 2)
      const verifier = new Webhook(hook.secret)
      const events = batches().map((got) => {
        const headers = {
          'webhook-id': got.headers['webhook-id'] as string,
          'webhook-timestamp': got.headers['webhook-timestamp'] as string,
          'webhook-signature': got.headers['webhook-signature'] as string,
        }
        const body = verifier.verify(got.body, headers) as { data: { events: { id: string; type: string; data: { linkId: string } }[] } }
        assert.match(headers['webhook-id'], /^evt_/)
        assert.ok(!body.data.events.some((e) => e.id === headers['webhook-id']), 'a batch has an id of its own')
        return body.data.events
      })
      // The full batch went at once; the fourth event waited for maxWaitMs alone. The bot is never an event.
      assert.deepEqual(
        events.map((e) => e.length),
        [3, 1],
      )
      const all = events.flat()
      assert.ok(all.every((e) => e.type === 'link.clicked' && e.data.linkId === link.id && /^evt_/.test(e.id)))
      assert.equal(new Set(all.map((e) => e.id)).size, 4)
      const others = r.received.filter((x) => x.path === '/batched' && x.json.type !== 'link.clicked.batch')
      assert.deepEqual(
        others.map((x) => x.json.type),
        ['link.created'],
      )
      await waitForLog(s, hook.id, (l) => l.filter((d) => d.eventType === 'link.clicked.batch' && d.delivered).length === 2)

      // batch: null sends one event per delivery again.
      const updated = await s.request('PATCH', `/v1/webhooks/${hook.id}`, { json: { batch: null } })
      assert.deepEqual([updated.status, updated.body.data.batch], [200, null])
      await s.request('GET', '/batched', { token: null, headers: { 'user-agent': CHROME } })
      const single = await r.waitFor((x) => x.some((e) => e.path === '/batched' && e.json.type === 'link.clicked'))
      assert.equal(single.filter((e) => e.path === '/batched' && e.json.type === 'link.clicked').length, 1)
      await s.request('DELETE', `/v1/webhooks/${hook.id}`)
    })

    test('a test ping is a webhook.test event; a refused answer is retried (first retry within 10 s); redirects are not followed', async () => {
      const hook = await createHook('/ping', ['link.deleted'])
      r.answer('/ping', 307, 'x'.repeat(2000), { location: r.url('/elsewhere') })
      const ping = await s.request('POST', `/v1/webhooks/${hook.id}/test`)
      assert.equal(ping.status, 202, ping.text)
      assert.equal(ping.body.data.eventType, 'webhook.test')
      const [first] = await waitForLog(s, hook.id, (l) => l[0]?.attempts === 1 && l[0]?.lastStatusCode === 307)
      assert.equal(first?.status, 'pending')
      // A pending delivery is queued already (perhaps in flight): a replay leaves it as it is.
      const replay = await s.request('POST', `/v1/webhooks/${hook.id}/deliveries/${first?.id}/retry`)
      assert.deepEqual([replay.status, replay.body.data.attempts, replay.body.data.nextAttemptAt], [202, 1, first?.nextAttemptAt])
      assert.match(first?.lastError ?? '', /307.*not followed/)
      assert.equal(first?.responseExcerpt?.length, 512)
      assert.equal(r.received.filter((x) => x.path === '/elsewhere').length, 0)
      assert.ok((RETRY_DELAYS_MS[0] as number) <= 10_000)
      r.answer('/ping', 204)
      offset += RETRY_DELAYS_MS[0] as number
      const [done] = await waitForLog(s, hook.id, (l) => l[0]?.status === 'delivered')
      assert.equal(done?.attempts, 2)
      const pings = r.received.filter((x) => x.path === '/ping')
      assert.equal(pings.length, 2)
      assert.equal(pings[0]?.headers['webhook-id'], pings[1]?.headers['webhook-id'])
      assert.equal(pings[1]?.json.type, 'webhook.test')
    })

    test(`a failing endpoint is retried ${MAX_ATTEMPTS} times over more than 24 h, then disabled, which its log says; a replay delivers`, async () => {
      const hook = await createHook('/down', ['link.created'])
      r.answer('/down', 500, 'down for maintenance')
      const started = clock.now()
      await s.request('POST', '/v1/links', { json: { destination: 'https://dest.example/down' } })
      // Each failed attempt schedules the next one its delay after itself: then the test clock moves there.
      for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
        const delay = RETRY_DELAYS_MS[attempt - 1] as number
        await waitForLog(
          s,
          hook.id,
          ([d]) =>
            d?.attempts === attempt &&
            d.lastAttemptAt !== null &&
            d.nextAttemptAt !== null &&
            Math.abs(Date.parse(d.nextAttemptAt) - Date.parse(d.lastAttemptAt) - delay) < 1000,
        )
        offset += delay
      }
      assert.ok(clock.now() - started >= 24 * HOUR)
      const [failed] = await waitForLog(s, hook.id, (l) => l[0]?.status === 'failed')
      assert.equal(failed?.attempts, MAX_ATTEMPTS)
      assert.match(failed?.lastError ?? '', /disabled the endpoint/)
      assert.equal(failed?.responseExcerpt, 'down for maintenance')
      const disabled = (await s.request('GET', `/v1/webhooks/${hook.id}`)).body.data
      assert.equal(disabled.enabled, false)
      assert.match(disabled.disabledReason, /8 attempts/)
      assert.equal(r.received.filter((x) => x.path === '/down').length, MAX_ATTEMPTS)

      // Fixed receiver: enable again, replay the failed delivery.
      r.answer('/down', 200)
      assert.equal((await s.request('PATCH', `/v1/webhooks/${hook.id}`, { json: { enabled: true } })).body.data.disabledReason, null)
      const replay = await s.request('POST', `/v1/webhooks/${hook.id}/deliveries/${failed?.id}/retry`)
      assert.equal(replay.status, 202, replay.text)
      const [replayed] = await waitForLog(s, hook.id, (l) => l[0]?.status === 'delivered')
      assert.equal(replayed?.attempts, 1)
      assert.equal((await s.request('POST', `/v1/webhooks/${hook.id}/deliveries/dlv_nope/retry`)).status, 404)
    })

    test('a receiver that does not answer within 10 s has failed that attempt', async () => {
      const hook = await createHook('/hang', ['link.deleted'])
      r.answer('/hang', 0)
      await s.request('POST', `/v1/webhooks/${hook.id}/test`)
      const [timedOut] = await waitForLog(s, hook.id, (l) => l[0]?.lastError !== null && l[0]?.lastError !== undefined)
      assert.equal(timedOut?.attempts, 1)
      assert.equal(timedOut?.status, 'pending')
      assert.equal(timedOut?.lastStatusCode, null)
      assert.match(timedOut?.lastError ?? '', /no answer within 10 s/)
      await s.request('DELETE', `/v1/webhooks/${hook.id}`)
    })

    test('link.clicked comes from the click pipeline, one per human visit, never for bots', async () => {
      const hook = await createHook('/clicks', ['link.clicked'])
      const link = (await s.request('POST', '/v1/links', { json: { destination: 'https://dest.example/clicked', path: '/clicked' } })).body.data
      const visit = (headers: Record<string, string>) => s.request('GET', '/clicked?qr=1', { token: null, headers })
      assert.equal((await visit({ 'user-agent': CHROME, referer: 'https://news.ycombinator.com/x', 'accept-language': 'pt-BR' })).status, 302)
      await visit({ 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' })
      await visit({ 'user-agent': CHROME })
      const got = (await r.waitFor((x) => x.filter((e) => e.path === '/clicks').length >= 2)).filter((e) => e.path === '/clicks')
      assert.deepEqual(
        got.map((e) => e.json.type),
        ['link.clicked', 'link.clicked'],
      )
      const data = got.map((e) => e.json.data).find((d) => d.referrer !== null)
      assert.deepEqual([data.linkId, data.path, data.qr, data.referrer, data.browser], [link.id, '/clicked', true, 'news.ycombinator.com', 'Chrome'])
      assert.deepEqual([data.language, data.utmSource, data.utmMedium, data.utmCampaign, data.city], ['pt-br', null, null, null, null])
      assert.notEqual(got[0]?.headers['webhook-id'], got[1]?.headers['webhook-id'])
      await s.container.clicks.flush()
      await sleep(200)
      assert.equal(r.received.filter((e) => e.path === '/clicks').length, 2)
      await waitForLog(s, hook.id, (l) => l.length === 2 && l.every((d) => d.delivered))
    })

    test('/metrics counts deliveries by outcome and shows the outbox backlog', async () => {
      const metrics = (await s.request('GET', '/metrics', { token: null })).text
      assert.match(metrics, /linkline_webhook_deliveries_total\{outcome="delivered"\} [1-9]/)
      assert.match(metrics, /linkline_webhook_deliveries_total\{outcome="failed"\} [1-9]/)
      assert.match(metrics, /linkline_webhook_outbox_backlog \d+/)
    })
  })
}

describe('webhooks to private addresses', () => {
  let s: TestServer
  let r: Receiver
  const answers: string[][] = []
  before(async () => {
    r = await startReceiver()
    s = await startTestServer({
      env: { LINKLINE_WEBHOOKS_POLL_INTERVAL_MS: '20' },
      // A DNS stand-in: each lookup of rebind.example answers the next address of the list.
      container: {
        outboundResolve: async (host) => {
          const address = answers.shift()?.[0] ?? '127.0.0.1'
          return host === 'rebind.example' ? [{ address, family: isIP(address) }] : []
        },
      },
    })
  })
  after(async () => {
    await s.close()
    await r.close()
  })

  test('a URL on a loopback, private or link-local address is 400', async () => {
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://10.1.2.3/',
      'http://169.254.169.254/latest',
      'http://[::1]/',
      'http://[fe80::1]/',
      'http://192.168.1.1/',
      'http://[::ffff:127.0.0.1]/',
      // IPv4 addresses in IPv6 spellings: IPv4-compatible, 6to4, NAT64, IPv4-translated.
      'http://[::7f00:1]/',
      'http://[::127.0.0.1]/',
      'http://[2002:7f00:1::]/',
      'http://[2002:a9fe:a9fe::]/',
      'http://[64:ff9b::a00:1]/',
      'http://[::ffff:0:7f00:1]/',
      'http://[fd00::1]/',
      'http://0x7f.1/',
    ]) {
      answers.length = 0
      const refused = await s.request('POST', '/v1/webhooks', { json: { url, events: ['*'] } })
      assert.equal(refused.status, 400, `${url}: ${refused.text}`)
      assert.equal(refused.body.error.param, 'url')
      assert.match(refused.body.error.message, /LINKLINE_FETCH_ALLOW_PRIVATE/)
    }
    for (const address of ['10.0.0.7', '::7f00:1', '2002:7f00:1::']) {
      answers.push([address])
      const refused = await s.request('POST', '/v1/webhooks', { json: { url: 'https://rebind.example/', events: ['*'] } })
      assert.equal(refused.status, 400, address)
      assert.ok(refused.body.error.message.includes(`resolves to ${address} (`), refused.body.error.message)
    }
    // The same rule on update.
    answers.push(['93.184.216.34'])
    const hook = await s.request('POST', '/v1/webhooks', { json: { url: 'https://rebind.example/', events: ['*'] } })
    assert.equal(hook.status, 201, hook.text)
    const moved = await s.request('PATCH', `/v1/webhooks/${hook.body.data.id}`, { json: { url: 'http://[2002:7f00:1::]/' } })
    assert.equal(moved.status, 400, moved.text)
    assert.equal(moved.body.error.param, 'url')
  })

  test('a name that resolved publicly at creation and privately at delivery is refused at connect time (DNS rebinding)', async () => {
    answers.push(['93.184.216.34'], ['2002:7f00:1::'], ['2002:7f00:1::'])
    const created = await s.request('POST', '/v1/webhooks', { json: { url: `http://rebind.example:${r.port}/rebound`, events: ['*'] } })
    assert.equal(created.status, 201, created.text)
    await s.request('POST', `/v1/webhooks/${created.body.data.id}/test`)
    // The attempt is counted when the delivery is claimed, its error once the connection is refused.
    const log = await waitForLog(s, created.body.data.id, (l) => l[0]?.attempts === 1 && l[0].lastError !== null)
    assert.equal(log[0]?.attempts, 1)
    assert.match(log[0]?.lastError ?? '', /2002:7f00:1:: \(6to4:loopback, 127\.0\.0\.1\), a private, loopback or link-local address/)
    assert.equal(r.received.length, 0)
    assert.match((await s.request('GET', '/metrics', { token: null })).text, /linkline_webhook_deliveries_total\{outcome="refused"\} 1/)
  })
})
