import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { isPublicAddress } from '../shared/outbound-address.js'
import { createOutboundFetch, OUTBOUND_MAX_BYTES, OutboundError, type OutboundFailure, type OutboundFetch } from './outbound.js'
import type { Resolve } from './resolve.js'

const FIXTURES = new URL('../../../test/fixtures/tls/', import.meta.url)

/** A server on a loopback address; every test route is a function of the request. */
async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1', server: Server = createServer()) {
  server.on('request', handler)
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return { server, port: (server.address() as AddressInfo).port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

async function failure(fetch: OutboundFetch, url: string, kind: OutboundFailure, extra: Partial<Parameters<OutboundFetch>[0]> = {}): Promise<OutboundError> {
  const error = await fetch({ url, ...extra }).then(
    (answer) => assert.fail(`${url} answered ${answer.status}`),
    (error: unknown) => error,
  )
  assert.ok(error instanceof OutboundError, String(error))
  assert.equal(error.kind, kind, error.message)
  return error
}

/** Writes 64 KiB chunks until the client goes away: a body of any size (2 GB and more). */
function endless(res: ServerResponse) {
  const chunk = Buffer.alloc(64 * 1024, 'x')
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(2 * 1024 ** 3) })
  const write = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', write)
  }
  res.on('error', () => {})
  write()
}

describe('the outbound client against local servers', () => {
  let local: Awaited<ReturnType<typeof listen>>
  let base: string
  const hits: string[] = []
  const fetch = createOutboundFetch({ allowPrivate: true })
  const drips = new Set<ServerResponse>()

  before(async () => {
    local = await listen((req, res) => {
      hits.push(`${req.method} ${req.url}`)
      const url = new URL(req.url ?? '/', 'http://x')
      switch (url.pathname) {
        case '/endless':
          return endless(res)
        case '/drip': {
          // The head at once, then one byte now and then: never a whole body.
          res.writeHead(200, { 'content-type': 'text/html' })
          drips.add(res)
          const timer = setInterval(() => res.write('.'), 20)
          res.on('close', () => clearInterval(timer))
          return
        }
        case '/silent':
          drips.add(res)
          return
        case '/loop':
          return res.writeHead(302, { location: '/loop-again' }).end()
        case '/loop-again':
          return res.writeHead(302, { location: `${base}/loop` }).end()
        case '/relative/start':
          return res.writeHead(301, { location: 'next?x=1' }).end()
        case '/relative/next':
          return res.writeHead(200, { 'content-type': 'text/plain' }).end(`arrived ${url.search}`)
        case '/see-other':
          return res.writeHead(303, { location: '/echo' }).end()
        case '/to-ftp':
          return res.writeHead(302, { location: 'ftp://example.com/file' }).end()
        case '/echo': {
          const chunks: Buffer[] = []
          req.on('data', (c: Buffer) => chunks.push(c))
          req.on('end', () =>
            res
              .writeHead(200, { 'content-type': 'application/json' })
              .end(JSON.stringify({ method: req.method, ua: req.headers['user-agent'], body: Buffer.concat(chunks).toString() })),
          )
          return
        }
        default:
          return res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page')
      }
    })
    base = `http://127.0.0.1:${local.port}`
  })
  after(async () => {
    for (const res of drips) res.destroy()
    await local.close()
  })

  test('an answer of any status is an answer, with a User-Agent naming Linkline', async () => {
    const missing = await fetch({ url: `${base}/nowhere` })
    assert.equal(missing.status, 404)
    assert.equal(missing.body.toString(), 'no such page')
    assert.equal(missing.truncated, false)
    const echo = await fetch({ url: `${base}/echo`, method: 'POST', body: 'hello' })
    const seen = JSON.parse(echo.body.toString()) as { method: string; ua: string; body: string }
    assert.equal(seen.method, 'POST')
    assert.equal(seen.body, 'hello')
    assert.match(seen.ua, /^Linkline\/\d+\.\d+\.\d+ /)
    const head = await fetch({ url: `${base}/echo`, method: 'HEAD' })
    assert.equal(head.status, 200)
    assert.equal(head.body.length, 0)
  })

  test('a body of 2 GB is read up to the cap, then the connection is closed', async () => {
    const answer = await fetch({ url: `${base}/endless` })
    assert.equal(answer.status, 200)
    assert.equal(answer.body.length, OUTBOUND_MAX_BYTES)
    assert.equal(answer.truncated, true)
    const small = await fetch({ url: `${base}/endless`, maxBytes: 512 })
    assert.equal(small.body.length, 512)
    assert.equal(small.truncated, true)
  })

  test('the deadline covers the whole exchange: a dripping body and a silent server time out', async () => {
    const dripping = await failure(fetch, `${base}/drip`, 'timeout', { timeoutMs: 300 })
    assert.equal(dripping.message, 'no answer within 0.3 s')
    await failure(fetch, `${base}/silent`, 'timeout', { timeoutMs: 300 })
  })

  test('redirects: relative locations resolved, a loop stops at the limit, 0 returns the 3xx', async () => {
    const arrived = await fetch({ url: `${base}/relative/start` })
    assert.equal(arrived.status, 200)
    assert.equal(arrived.url, `${base}/relative/next?x=1`)
    assert.equal(arrived.body.toString(), 'arrived ?x=1')

    hits.length = 0
    await failure(fetch, `${base}/loop`, 'too_many_redirects')
    // The first request and five redirects followed, then the sixth refused.
    assert.equal(hits.length, 6)
    hits.length = 0
    await failure(fetch, `${base}/loop`, 'too_many_redirects', { redirects: 2 })
    assert.equal(hits.length, 3)

    const unfollowed = await fetch({ url: `${base}/loop`, redirects: 0 })
    assert.equal(unfollowed.status, 302)
    assert.equal(unfollowed.headers.location, '/loop-again')

    // 303 after a POST: a GET without the body.
    const seen = JSON.parse((await fetch({ url: `${base}/see-other`, method: 'POST', body: 'x' })).body.toString()) as { method: string; body: string }
    assert.deepEqual([seen.method, seen.body], ['GET', ''])
    await failure(fetch, `${base}/to-ftp`, 'invalid_url')
  })

  test('only absolute http and https URLs', async () => {
    for (const url of ['not a url', '/relative', 'ftp://example.com/', 'javascript:alert(1)', 'file:///etc/passwd', 'http://']) {
      await failure(fetch, url, 'invalid_url')
    }
  })

  test('a closed port is a connection failure', async () => {
    const closed = await listen(() => {})
    await closed.close()
    await failure(fetch, `http://127.0.0.1:${closed.port}/`, 'connection')
  })
})

describe('the address rule on every hop', () => {
  // 127.0.0.2 stands in for a public server; every other address keeps the rule.
  const STAND_IN = '127.0.0.2'
  const names: Record<string, string> = { 'public.test': STAND_IN, 'loopback.test': '127.0.0.1', 'metadata.test': '169.254.169.254' }
  const lookups: string[] = []
  const resolve: Resolve = async (host) => {
    lookups.push(host)
    const address = names[host]
    return address === undefined ? [] : [{ address, family: 4 }]
  }
  const fetch = createOutboundFetch({ allowPrivate: false, resolve, isPublic: (a) => a === STAND_IN || isPublicAddress(a) })
  let redirector: Awaited<ReturnType<typeof listen>>
  const reached: string[] = []
  let loopback: Awaited<ReturnType<typeof listen>>

  before(async () => {
    // Anything reaching 127.0.0.1 would be a hole in the rule.
    loopback = await listen((req, res) => {
      reached.push(req.url ?? '')
      res.end('internal')
    })
    redirector = await listen((req, res) => {
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to')
      if (to === null) return res.end('public page')
      res.writeHead(302, { location: to.replace('PORT', String(loopback.port)) }).end()
    }, STAND_IN)
  })
  after(async () => {
    await redirector.close()
    await loopback.close()
  })

  const start = (to?: string) => `http://public.test:${redirector.port}/${to === undefined ? '' : `?to=${encodeURIComponent(to)}`}`

  test('a public name is fetched', async () => {
    const answer = await fetch({ url: start() })
    assert.equal(answer.body.toString(), 'public page')
  })

  test('redirects to loopback and link-local addresses are refused before connecting, literal or by name', async () => {
    for (const to of [
      'http://127.0.0.1:PORT/secret',
      'http://[::ffff:127.0.0.1]:PORT/secret',
      'http://loopback.test:PORT/secret',
      'http://169.254.169.254/latest/meta-data/',
      'http://metadata.test/latest/meta-data/',
    ]) {
      const error = await failure(fetch, start(to), 'private_address')
      assert.match(error.message, /a private, loopback or link-local address/)
    }
    assert.match((await failure(fetch, start('http://metadata.test/'), 'private_address')).message, /169\.254\.169\.254 \(linkLocal\)/)
    assert.deepEqual(reached, [])
    assert.ok(lookups.includes('metadata.test'))
  })

  test('a first hop on a private address is refused too; allowPrivate lifts the rule', async () => {
    await failure(fetch, `http://127.0.0.1:${loopback.port}/`, 'private_address')
    await failure(fetch, `http://loopback.test:${loopback.port}/`, 'private_address')
    assert.deepEqual(reached, [])
    const open = createOutboundFetch({ allowPrivate: true, resolve })
    assert.equal((await open({ url: `http://loopback.test:${loopback.port}/inside` })).body.toString(), 'internal')
    assert.deepEqual(reached, ['/inside'])
  })

  test('a name that does not resolve is a DNS failure', async () => {
    const failing = createOutboundFetch({
      allowPrivate: false,
      resolve: () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' })),
    })
    await failure(failing, 'https://nowhere.test/', 'dns')
    // A name without any address.
    await failure(fetch, 'http://empty.test/', 'dns')
  })
})

describe('TLS', () => {
  test('a certificate nobody vouches for is a TLS failure', async () => {
    const server = createTlsServer({ key: readFileSync(new URL('self-signed.key', FIXTURES)), cert: readFileSync(new URL('self-signed.crt', FIXTURES)) })
    const tls = await listen((_, res) => res.end('secret'), '127.0.0.1', server)
    try {
      await failure(createOutboundFetch({ allowPrivate: true }), `https://127.0.0.1:${tls.port}/`, 'tls')
      // https spoken to a plain http server is a TLS failure as well.
      const plain = await listen((_, res) => res.end('plain'))
      await failure(createOutboundFetch({ allowPrivate: true }), `https://127.0.0.1:${plain.port}/`, 'tls')
      await plain.close()
    } finally {
      await tls.close()
    }
  })
})
