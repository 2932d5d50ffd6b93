import assert from 'node:assert/strict'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { PAGE_TITLE_MAX } from './page-title.js'

const HTML = { 'content-type': 'text/html; charset=utf-8' }

/** Pages on 127.0.0.1, one per path; `/hold` answers only once the test releases it. */
async function startPages() {
  const asked: string[] = []
  const holds: (() => void)[] = []
  const hanging = new Set<ServerResponse>()
  let hungUp: () => void = () => {}
  const hangUp = new Promise<void>((resolve) => (hungUp = resolve))
  const server = createServer((req, res) => {
    asked.push(req.url ?? '')
    res.on('error', () => {})
    switch (req.url) {
      case '/title':
        return res.writeHead(200, HTML).end('<!doctype html><html><head><title>  The page\n title </title></head><body>Hi</body></html>')
      case '/og':
        return res
          .writeHead(200, HTML)
          .end('<html><head><title>Summer sale | Shop</title><meta property="og:title" content="Summer sale"></head><body></body></html>')
      case '/entities':
        return res.writeHead(200, HTML).end('<title>Fish &amp; Chips &#8212; caf&eacute; &lt;3</title>')
      case '/latin1':
        return res
          .writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1' })
          .end(Buffer.concat([Buffer.from('<title>Caf'), Buffer.from([0xe9]), Buffer.from(' cr'), Buffer.from([0xe8]), Buffer.from('me</title>')]))
      case '/meta-charset':
        return res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            Buffer.concat([
              Buffer.from('<head><meta charset="windows-1251"><title>'),
              Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]),
              Buffer.from('</title>'),
            ]),
          )
      case '/huge': {
        // A title of 10 MB.
        res.writeHead(200, HTML)
        res.write('<title>')
        for (let i = 0; i < 10; i++) res.write('Ab'.repeat((1024 * 1024) / 2))
        return res.end('</title>')
      }
      case '/endless': {
        // A title that never ends: only a reader that stops at its cap gets to it.
        res.writeHead(200, HTML)
        res.write('<title>')
        const chunk = 'y'.repeat(64 * 1024)
        const write = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', write)
        }
        return write()
      }
      case '/invalid':
        return res.writeHead(200, HTML).end('<title>Still <b>found</b> &bogus;</title></p></div><<>>&&;<body')
      case '/binary':
        return res.writeHead(200, HTML).end(Buffer.from([0x00, 0xff, 0xfe, 0x3c, 0x3c, 0x00]))
      case '/plain':
        return res.writeHead(200, { 'content-type': 'text/plain' }).end('<title>Not a page</title>')
      case '/missing':
        return res.writeHead(404, HTML).end('<title>Not Found</title>')
      case '/slow':
        // The head, then nothing: the fetch gives up at its deadline.
        res.writeHead(200, HTML)
        res.write('<html><head>')
        hanging.add(res)
        res.on('close', () => hungUp())
        return
      case '/hold':
        holds.push(() => res.writeHead(200, HTML).end('<title>From the page</title>'))
        return
      default:
        return res.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    holds,
    hangUp,
    asked,
    close: () => {
      for (const res of hanging) res.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

for (const backend of backends) {
  describe(`titles from the destination page (${backend})`, () => {
    let s: TestServer
    let pages: Awaited<ReturnType<typeof startPages>>
    before(async () => {
      pages = await startPages()
      // A deadline shorter than the 10 s, so that the slow page's fetch ends soon.
      s = await startTestServer({ backend, env: { LINKLINE_FETCH_ALLOW_PRIVATE: 'true' }, container: { titleTimeoutMs: 2000 } })
    })
    after(async () => {
      await s.close()
      await pages.close()
    })

    const create = async (body: Record<string, unknown>) => {
      const r = await s.request('POST', '/v1/links', { json: body })
      assert.equal(r.status, 201, r.text)
      return r.body.data as { id: string; title: string | null; titleSource: string | null }
    }
    const get = async (id: string) => (await s.request('GET', `/v1/links/${id}`)).body.data as { title: string | null; titleSource: string | null }
    /** The link once every title fetch of the server has ended. */
    const settled = async (id: string) => {
      await s.container.titles.idle()
      return get(id)
    }

    test('a link created without a title gets the page title: og:title first, else <title>, entities decoded, white space collapsed', async () => {
      const expected: [string, string][] = [
        ['/title', 'The page title'],
        ['/og', 'Summer sale'],
        ['/entities', 'Fish & Chips — café <3'],
        ['/latin1', 'Café crème'],
        ['/meta-charset', 'Привет'],
        ['/invalid', 'Still <b>found</b> &bogus;'],
      ]
      const links: { id: string }[] = []
      for (const [path] of expected) {
        const link = await create({ destination: pages.url(path) })
        // The create answers before the page is fetched.
        assert.deepEqual([link.title, link.titleSource], [null, null])
        links.push(link)
      }
      for (const [i, [path, title]] of expected.entries()) {
        const after = await settled(links[i]?.id ?? '')
        assert.deepEqual([after.title, after.titleSource], [title, 'page'], path)
      }
      // The list shows it too.
      const listed = (await s.request('GET', '/v1/links?limit=100')).body.data as { id: string; title: string | null; titleSource: string | null }[]
      const og = listed.find((l) => l.id === links[1]?.id)
      assert.deepEqual([og?.title, og?.titleSource], ['Summer sale', 'page'])
    })

    test(`a title of 10 MB is cut to ${PAGE_TITLE_MAX} characters; a page that never ends is read up to the cap`, async () => {
      const huge = await create({ destination: pages.url('/huge') })
      const endless = await create({ destination: pages.url('/endless') })
      const hugeTitle = (await settled(huge.id)).title ?? ''
      assert.equal(hugeTitle.length, PAGE_TITLE_MAX)
      assert.match(hugeTitle, /^(Ab)+$/)
      const endlessLink = await get(endless.id)
      assert.deepEqual([endlessLink.title, endlessLink.titleSource], ['y'.repeat(PAGE_TITLE_MAX), 'page'])
    })

    test('no title from a page that is not HTML, answers 404, or has none; the create never fails', async () => {
      for (const path of ['/plain', '/missing', '/binary', '/no-such-page']) {
        const link = await create({ destination: pages.url(path) })
        const after = await settled(link.id)
        assert.deepEqual([after.title, after.titleSource], [null, null], path)
      }
      // A name that does not resolve (test servers resolve loopback names only).
      const unknown = await create({ destination: 'https://no-such-host.example/' })
      const unresolved = await settled(unknown.id)
      assert.deepEqual([unresolved.title, unresolved.titleSource], [null, null])
    })

    test('a slow page: the create answers at once, the server serves others meanwhile, and the link keeps no title', async () => {
      const slow = await create({ destination: pages.url('/slow') })
      assert.equal(slow.title, null)
      // While the page hangs, everything else is served.
      const other = await create({ destination: pages.url('/title'), title: 'Given' })
      assert.equal((await s.request('GET', `/v1/links/${other.id}`)).status, 200)
      assert.equal((await s.request('GET', '/healthz', { token: null })).status, 200)
      // The fetch gives up at its deadline and closes the connection.
      await pages.hangUp
      const after = await settled(slow.id)
      assert.deepEqual([after.title, after.titleSource], [null, null])
    })

    test('a title the owner sets before the page answers wins', async () => {
      const link = await create({ destination: pages.url('/hold') })
      for (let i = 0; i < 200 && pages.holds.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
      assert.equal(pages.holds.length, 1, 'the page was asked for')
      const patched = await s.request('PATCH', `/v1/links/${link.id}`, { json: { title: 'Mine' } })
      assert.equal(patched.status, 200, patched.text)
      assert.deepEqual([patched.body.data.title, patched.body.data.titleSource], ['Mine', 'user'])
      pages.holds.shift()?.()
      const after = await settled(link.id)
      assert.deepEqual([after.title, after.titleSource], ['Mine', 'user'])
    })

    test('titleSource: user for a title given or changed, kept when a change leaves the title alone', async () => {
      const given = await create({ destination: pages.url('/title'), title: 'Given' })
      assert.deepEqual([given.title, given.titleSource], ['Given', 'user'])
      const fetched = await create({ destination: pages.url('/og') })
      assert.equal((await settled(fetched.id)).titleSource, 'page')
      // Another field changed, the title sent as it was: still the page's.
      const same = await s.request('PATCH', `/v1/links/${fetched.id}`, { json: { title: 'Summer sale', tags: ['x'] } })
      assert.deepEqual([same.body.data.title, same.body.data.titleSource], ['Summer sale', 'page'])
      const renamed = await s.request('PATCH', `/v1/links/${fetched.id}`, { json: { title: 'Renamed' } })
      assert.deepEqual([renamed.body.data.title, renamed.body.data.titleSource], ['Renamed', 'user'])
      // A title removed is the owner's choice too: no page title comes back.
      const removed = await s.request('PATCH', `/v1/links/${fetched.id}`, { json: { title: null } })
      assert.deepEqual([removed.body.data.title, removed.body.data.titleSource], [null, 'user'])
    })

    test('bulk create fetches the titles of its untitled links', async () => {
      const r = await s.request('POST', '/v1/links/bulk', {
        json: { links: [{ destination: pages.url('/title') }, { destination: pages.url('/og'), title: 'Kept' }, { destination: pages.url('/entities') }] },
      })
      assert.equal(r.status, 200, r.text)
      const ids = (r.body.data as { link: { id: string } }[]).map((item) => item.link.id)
      await s.container.titles.idle()
      const titles = await Promise.all(ids.map(get))
      assert.deepEqual(
        titles.map((l) => [l.title, l.titleSource]),
        [
          ['The page title', 'page'],
          ['Kept', 'user'],
          ['Fish & Chips — café <3', 'page'],
        ],
      )
    })
  })
}

describe('LINKLINE_PAGE_TITLES=off', () => {
  test('a link created without a title keeps none, and its destination is never asked', async () => {
    const pages = await startPages()
    const s = await startTestServer({ env: { LINKLINE_FETCH_ALLOW_PRIVATE: 'true', LINKLINE_PAGE_TITLES: 'off' } })
    try {
      const created = await s.request('POST', '/v1/links', { json: { destination: pages.url('/title') } })
      assert.equal(created.status, 201, created.text)
      await s.container.titles.idle()
      const link = (await s.request('GET', `/v1/links/${created.body.data.id}`)).body.data
      assert.deepEqual([link.title, link.titleSource], [null, null])
      assert.deepEqual(pages.asked, [])
    } finally {
      await s.close()
      await pages.close()
    }
  })
})
