import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import jsqr from 'jsqr'
import { PNG } from 'pngjs'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'

// jsqr is CommonJS typed as an ES module: under NodeNext its default export is `module.exports.default`.
const jsQR = jsqr.default
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'

/** Decodes a PNG with an independent decoder (pngjs + jsQR), not with the library that drew it. */
function decode(png: Buffer): { text: string; width: number; height: number } {
  const image = PNG.sync.read(png)
  const code = jsQR(new Uint8ClampedArray(image.data), image.width, image.height)
  assert.ok(code, 'the image holds a readable QR code')
  return { text: code.data, width: image.width, height: image.height }
}

for (const backend of backends) {
  describe(`QR codes (${backend})`, () => {
    let s: TestServer
    let id: string
    before(async () => {
      s = await startTestServer({ backend })
      const r = await s.request('POST', '/v1/links', { json: { destination: 'https://shop.example/summer?ref=poster', path: '/promo/qr' } })
      id = r.body.data.id
    })
    after(() => s.close())

    const qr = (query = '', headers: Record<string, string> = {}) => s.request('GET', `/v1/links/${id}/qr${query}`, { headers })

    test('every ECC level and custom colours decode to the short URL with the marker; following it counts a QR scan', async () => {
      const variants = ['?ecc=L', '?ecc=M', '?ecc=Q', '?ecc=H', '?color=%231a237e&background=%23fffde7', '?color=%23004d40&background=%23e0f2f1&ecc=H&margin=0']
      for (const query of variants) {
        const r = await qr(query)
        assert.equal(r.status, 200, query)
        assert.equal(r.headers['content-type'], 'image/png')
        const { text } = decode(r.raw)
        assert.equal(text, `http://${s.host}/promo/qr?qr=1`, query)

        const url = new URL(text)
        const visit = await s.request('GET', url.pathname + url.search, { token: null, headers: { host: url.host, 'user-agent': CHROME } })
        assert.equal(visit.status, 302)
        assert.equal(visit.headers.location, 'https://shop.example/summer?ref=poster', 'the marker never reaches the destination')
      }
      await s.container.clicks.flush()
      const stats = (await s.request('GET', `/v1/links/${id}/stats`)).body.data
      assert.equal(stats.qrScans, variants.length)
      assert.equal(stats.humanClicks, variants.length)
    })

    test('defaults: a 512 px PNG; size is honoured', async () => {
      const small = decode((await qr()).raw)
      assert.deepEqual([small.width, small.height], [512, 512])
      const big = decode((await qr('?size=1024&margin=8')).raw)
      assert.deepEqual([big.width, big.height], [1024, 1024])
    })

    test('SVG', async () => {
      const r = await qr('?format=svg&size=300&color=%23ff0000')
      assert.equal(r.status, 200)
      assert.equal(r.headers['content-type'], 'image/svg+xml')
      assert.match(r.text, /^<svg[^>]* width="300" height="300"/)
      assert.match(r.text, /#ff0000/)
    })

    test('ETag and If-None-Match: 304 without a body; other options, other ETag', async () => {
      const first = await qr('?size=256')
      const etag = first.headers.etag as string
      assert.match(etag, /^"[\w-]+"$/)
      const again = await qr('?size=256', { 'if-none-match': etag })
      assert.equal(again.status, 304)
      assert.equal(again.raw.length, 0)
      assert.equal(again.headers.etag, etag)
      assert.equal((await qr('?size=256', { 'if-none-match': `"other", W/${etag}` })).status, 304)
      const other = await qr('?size=257', { 'if-none-match': etag })
      assert.equal(other.status, 200)
      assert.notEqual(other.headers.etag, etag)
    })

    test('the code follows the link: a new path means a new code and a new ETag', async () => {
      const r = await s.request('POST', '/v1/links', { json: { destination: 'https://a.example/', path: '/moving' } })
      const before = await s.request('GET', `/v1/links/${r.body.data.id}/qr`)
      await s.request('PATCH', `/v1/links/${r.body.data.id}`, { json: { path: '/moved' } })
      const after = await s.request('GET', `/v1/links/${r.body.data.id}/qr`, { headers: { 'if-none-match': before.headers.etag as string } })
      assert.equal(after.status, 200)
      assert.equal(decode(after.raw).text, `http://${s.host}/moved?qr=1`)
    })

    test('download=1 is an attachment named after the path', async () => {
      assert.equal((await qr()).headers['content-disposition'], undefined)
      assert.equal((await qr('?download=1')).headers['content-disposition'], 'attachment; filename="promo-qr.png"')
      assert.equal((await qr('?download=true&format=svg')).headers['content-disposition'], 'attachment; filename="promo-qr.svg"')
    })

    test('every option is validated, with param', async () => {
      const cases: [string, string][] = [
        ['format=gif', 'format'],
        ['size=63', 'size'],
        ['size=4097', 'size'],
        ['size=abc', 'size'],
        ['size=512.5', 'size'],
        ['margin=33', 'margin'],
        ['margin=-1', 'margin'],
        ['ecc=X', 'ecc'],
        ['ecc=m', 'ecc'],
        ['color=red', 'color'],
        ['color=%23fff', 'color'],
        ['background=%2300000g', 'background'],
        ['color=%23123456&background=%23123456', 'background'],
        ['download=maybe', 'download'],
        ['width=100', 'width'],
      ]
      for (const [query, param] of cases) {
        const r = await qr(`?${query}`)
        assert.equal(r.status, 400, query)
        assert.equal(r.body.error.code, 'validation_error')
        assert.equal(r.body.error.param, param, query)
      }
      assert.equal((await qr('?size=64&margin=32&size=4096')).status, 400, 'a repeated parameter is not an integer')
    })

    test("another owner's link is 404, before its parameters; the scope is links:read", async () => {
      const bob = await s.createToken('bob')
      assert.equal((await s.request('GET', `/v1/links/${id}/qr`, { token: bob })).status, 404)
      assert.equal((await s.request('GET', `/v1/links/${id}/qr?size=1`, { token: bob })).status, 404)
      const writer = await s.createToken('alice', ['links:write'])
      assert.equal((await s.request('GET', `/v1/links/${id}/qr`, { token: writer })).status, 403)
    })
  })
}

describe('QR rendering shared fairly between owners', () => {
  let s: TestServer
  before(async () => {
    s = await startTestServer({ env: { LINKLINE_QR_THREADS: '1', LINKLINE_QR_QUEUE: '4', LINKLINE_QR_PER_OWNER: '2' } })
  })
  after(() => s.close())

  test("one owner's flood of renders is refused on its own (429); another owner's code is still rendered", async () => {
    const flood = (await s.request('POST', '/v1/links', { json: { destination: 'https://flood.example/' } })).body.data.id
    const bob = await s.createToken('bob')
    const small = (await s.request('POST', '/v1/links', { json: { destination: 'https://small.example/' }, token: bob })).body.data.id
    // Sixty large renders at once, each a different image (no cache, no shared render).
    const answers = Array.from({ length: 60 }, (_, i) => s.request('GET', `/v1/links/${flood}/qr?size=4096&color=%23${i.toString(16).padStart(6, '0')}`))
    // The first refusals have come back: the owner's share of the pool is taken (before, the whole pool was).
    await Promise.race(answers.map(async (answer) => ((await answer).status === 200 ? new Promise(() => {}) : undefined)))
    const other = await s.request('GET', `/v1/links/${small}/qr?size=128`, { token: bob })
    assert.equal(other.status, 200, other.text)
    assert.match(decode(other.raw).text, /\?qr=1$/)

    const settled = await Promise.all(answers)
    // At least its share; a little more when a render ended while the burst was still arriving.
    assert.ok(settled.filter((r) => r.status === 200).length >= 2, 'the flooding owner renders its share')
    const refused = settled.filter((r) => r.status !== 200)
    assert.ok(refused.length > 0)
    for (const r of refused) {
      assert.equal(r.status, 429)
      assert.equal(r.body.error.code, 'rate_limited')
      assert.equal(r.headers['retry-after'], '1')
    }
  })
})
