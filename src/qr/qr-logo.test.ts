import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import jsqr from 'jsqr'
import { PNG } from 'pngjs'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { signedInPerson } from '../../test/people.js'
import { LOGO_BYTES } from './qr-logo.images.js'

// jsqr is CommonJS typed as an ES module: under NodeNext its default export is `module.exports.default`.
const jsQR = jsqr.default

/** A logo: a blue square inside a red ring, on transparent pixels (which must show the code's background). */
function pngLogo(side = 160, blue: [number, number, number] = [21, 101, 192]): Buffer {
  const png = new PNG({ width: side, height: side })
  const c = side / 2
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const i = (y * side + x) * 4
      const d = Math.hypot(x + 0.5 - c, y + 0.5 - c)
      const inSquare = Math.abs(x + 0.5 - c) < side / 4 && Math.abs(y + 0.5 - c) < side / 4
      const rgba = inSquare ? [...blue, 255] : d > side * 0.4 && d < side * 0.48 ? [211, 47, 47, 255] : [0, 0, 0, 0]
      png.data.set(rgba, i)
    }
  }
  return PNG.sync.write(png)
}

const SVG_LOGO =
  '<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="#2e7d32"/><use href="#x"/></svg>\n'

/** Decodes a PNG with an independent decoder; also the RGB of a pixel. */
function decode(png: Buffer) {
  const image = PNG.sync.read(png)
  const code = jsQR(new Uint8ClampedArray(image.data), image.width, image.height)
  assert.ok(code, 'the image holds a readable QR code')
  const rgb = (x: number, y: number) => [...image.data.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 3)]
  // The symbol's width in pixels (without the quiet zone), from where the decoder found its corners.
  const symbol = code.location.topRightCorner.x - code.location.topLeftCorner.x
  return { text: code.data, version: code.version, width: image.width, symbol, rgb }
}

const near = (actual: number[], expected: number[], what: string) =>
  assert.ok(
    actual.every((v, i) => Math.abs(v - (expected[i] as number)) <= 8),
    `${what}: ${actual} ≈ ${expected}`,
  )

for (const backend of backends) {
  describe(`QR logo (${backend})`, () => {
    let s: TestServer
    let id: string
    let shortQr: string
    before(async () => {
      s = await startTestServer({ backend })
      const r = await s.request('POST', '/v1/links', { json: { destination: 'https://shop.example/logo', path: '/brand' } })
      id = r.body.data.id
      shortQr = `http://${s.host}/brand?qr=1`
    })
    after(() => s.close())

    const upload = (body: Buffer | string, type: string, token?: string) =>
      s.request('PUT', '/v1/workspace/logo', { raw: body, headers: { 'content-type': type }, ...(token && { token }) })
    const qr = (query: string, headers: Record<string, string> = {}, token?: string) =>
      s.request('GET', `/v1/links/${id}/qr?${query}`, { headers, ...(token && { token }) })

    test('logo=1 before any logo is 400 logo; GET and DELETE are 404', async () => {
      const r = await qr('logo=1')
      assert.equal(r.status, 400)
      assert.deepEqual([r.body.error.code, r.body.error.param], ['validation_error', 'logo'])
      assert.equal((await s.request('GET', '/v1/workspace/logo')).status, 404)
      const gone = await s.request('DELETE', '/v1/workspace/logo')
      assert.equal(gone.status, 404)
      assert.equal(gone.body.error.code, 'not_found')
    })

    test('upload a PNG, read it back with an ETag; replace it with an SVG; remove it; each change is audited', async () => {
      const png = pngLogo()
      const put = await upload(png, 'image/png')
      assert.equal(put.status, 200, put.text)
      assert.equal(put.body.data.contentType, 'image/png')
      assert.equal(put.body.data.bytes, png.length)
      assert.match(put.body.data.updatedAt, /^\d{4}-\d\d-\d\dT/)

      const got = await s.request('GET', '/v1/workspace/logo')
      assert.equal(got.status, 200)
      assert.equal(got.headers['content-type'], 'image/png')
      assert.ok(got.raw.equals(png), 'the very bytes uploaded')
      assert.match(String(got.headers['content-security-policy']), /sandbox/)
      const etag = got.headers.etag as string
      assert.equal((await s.request('GET', '/v1/workspace/logo', { headers: { 'if-none-match': etag } })).status, 304)

      const svg = await upload(SVG_LOGO, 'image/svg+xml; charset=utf-8')
      assert.equal(svg.status, 200, svg.text)
      assert.equal(svg.body.data.contentType, 'image/svg+xml')
      const again = await s.request('GET', '/v1/workspace/logo', { headers: { 'if-none-match': etag } })
      assert.equal(again.status, 200)
      assert.equal(again.headers['content-type'], 'image/svg+xml')
      assert.equal(again.text, SVG_LOGO)

      const removed = await s.request('DELETE', '/v1/workspace/logo')
      assert.equal(removed.status, 200)
      assert.deepEqual(removed.body.data, { deleted: true })
      assert.equal((await s.request('GET', '/v1/workspace/logo')).status, 404)
      assert.equal((await qr('logo=1')).body.error.param, 'logo')

      const log = await s.request('GET', '/v1/audit-log?resourceType=workspace_logo')
      assert.deepEqual(
        log.body.data.map((e: { action: string; resourceId: string }) => [e.action, e.resourceId]),
        [
          ['workspace_logo.deleted', 'alice'],
          ['workspace_logo.updated', 'alice'],
          ['workspace_logo.updated', 'alice'],
        ],
      )
    })

    test('over 100 KB is 413; another type is 415; a body that is not the image it claims is 400 logo', async () => {
      const big = await upload(Buffer.concat([pngLogo(), Buffer.alloc(LOGO_BYTES)]), 'image/png')
      assert.equal(big.status, 413)
      assert.equal(big.body.error.code, 'payload_too_large')
      for (const [body, type] of [
        [pngLogo(), 'image/jpeg'],
        ['{"logo":"x"}', 'application/json'],
        ['logo=x', 'application/x-www-form-urlencoded'],
        ['<svg/>', 'text/plain'],
      ] as const) {
        const r = await upload(body, type)
        assert.equal(r.status, 415, type)
        assert.equal(r.body.error.code, 'unsupported_media_type')
      }
      const wide = new PNG({ width: 1100, height: 10 })
      const truncated = pngLogo().subarray(0, 200)
      for (const [body, type, message] of [
        [SVG_LOGO, 'image/png', /not a PNG/],
        [pngLogo(), 'image/svg+xml', /refused|UTF-8/],
        [truncated, 'image/png', /cannot be decoded/],
        [PNG.sync.write(wide), 'image/png', /at most 1024×1024/],
        ['', 'image/png', /empty/],
        ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml', /<script>/],
        ['<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', 'image/svg+xml', /event handler/],
        ['<svg xmlns="http://www.w3.org/2000/svg"><image href="https://tracker.example/p.png"/></svg>', 'image/svg+xml', /outside the document/],
        ['<svg xmlns="http://www.w3.org/2000/svg"><g></svg>', 'image/svg+xml', /unclosed/],
        ['<html><body/></html>', 'image/svg+xml', /root/],
      ] as const) {
        const r = await upload(body, type)
        assert.equal(r.status, 400, `${type}: ${String(body).slice(0, 40)}`)
        assert.equal(r.body.error.param, 'logo')
        assert.match(r.body.error.message, message)
      }
      assert.equal((await s.request('GET', '/v1/workspace/logo')).status, 404, 'nothing refused was stored')
    })

    test('changing the logo takes domains:write (admins and owners): a member or a narrow token is 403, and may still read it', async () => {
      const narrow = await s.createToken('alice', ['links:read', 'links:write'])
      assert.equal((await upload(pngLogo(), 'image/png', narrow)).status, 403)
      const member = await signedInPerson(s, `member-${backend}@example.com`, 'alice', 'member')
      const asMember = (method: string, raw?: Buffer) =>
        s.request(method, '/v1/workspace/logo', { token: null, headers: { ...member.headers, 'content-type': 'image/png' }, ...(raw && { raw }) })
      const refused = await asMember('PUT', pngLogo())
      assert.equal(refused.status, 403)
      assert.equal(refused.body.error.code, 'forbidden')
      assert.equal((await upload(pngLogo(), 'image/png')).status, 200)
      assert.equal((await asMember('DELETE')).status, 403)
      assert.equal((await asMember('GET')).status, 200)
      assert.equal((await s.request('GET', '/v1/workspace/logo', { token: narrow })).status, 200)
      const admin = await signedInPerson(s, `admin-${backend}@example.com`, 'alice', 'admin')
      const byAdmin = await s.request('PUT', '/v1/workspace/logo', {
        token: null,
        raw: pngLogo(120),
        headers: { ...admin.headers, 'content-type': 'image/png' },
      })
      assert.equal(byAdmin.status, 200, byAdmin.text)
    })

    test('every code with the logo decodes to the short URL; the logo is drawn in the centre over the background; ECC is H', async () => {
      const blue = [21, 101, 192]
      assert.equal((await upload(pngLogo(160, blue as [number, number, number]), 'image/png')).status, 200)
      const variants = [
        'size=128',
        'size=256&ecc=L',
        'size=512',
        'size=700&margin=0',
        'size=1024&margin=8&ecc=Q',
        'size=512&color=%231a237e&background=%23fffde7',
        'size=300&color=%23004d40&background=%23e0f2f1&margin=2',
        'size=2048&color=%23b71c1c',
      ]
      for (const variant of variants) {
        const r = await qr(`logo=1&${variant}`)
        assert.equal(r.status, 200, variant)
        assert.equal(r.headers['content-type'], 'image/png')
        const code = decode(r.raw)
        assert.equal(code.text, shortQr, variant)
        const centre = Math.floor(code.width / 2)
        near(code.rgb(centre, centre), blue, `${variant}: the logo in the centre`)
        // The logo's transparent corner, inside its box (21% of the symbol) and outside its ring: the background shows.
        const background = new URLSearchParams(variant).get('background') ?? '#ffffff'
        const corner = Math.floor(centre - code.symbol * 0.09)
        near(
          code.rgb(corner, corner),
          [1, 3, 5].map((at) => parseInt(background.slice(at, at + 2), 16)),
          `${variant}: the quiet square`,
        )
      }
      const plainH = decode((await qr('ecc=H')).raw)
      const withLogo = decode((await qr('logo=1&ecc=L')).raw)
      assert.equal(withLogo.version, plainH.version, 'error correction H whatever ecc says')
      assert.ok(decode((await qr('ecc=L')).raw).version < plainH.version)
    })

    test('SVG codes carry the logo as an embedded image on a background square; an SVG logo goes on SVG codes only', async () => {
      const png = pngLogo()
      assert.equal((await upload(png, 'image/png')).status, 200)
      const withPng = await qr('logo=1&format=svg&background=%23fffde7')
      assert.equal(withPng.status, 200)
      assert.equal(withPng.headers['content-type'], 'image/svg+xml')
      assert.ok(withPng.text.includes(`xlink:href="data:image/png;base64,${png.toString('base64')}"`))
      assert.match(withPng.text, /<rect x="[\d.]+" y="[\d.]+" width="\d+" height="\d+" fill="#fffde7"\/><image [^>]+\/><\/svg>/)

      assert.equal((await upload(SVG_LOGO, 'image/svg+xml')).status, 200)
      const withSvg = await qr('logo=1&format=svg')
      assert.equal(withSvg.status, 200)
      assert.ok(withSvg.text.includes(`data:image/svg+xml;base64,${Buffer.from(SVG_LOGO).toString('base64')}`))
      const onPng = await qr('logo=1&format=png')
      assert.equal(onPng.status, 400)
      assert.equal(onPng.body.error.param, 'format')
      assert.equal((await qr('format=png')).status, 200, 'codes without the logo are unchanged')
    })

    test('the ETag follows the logo: a new logo answers a new image, not 304', async () => {
      assert.equal((await upload(pngLogo(160, [21, 101, 192]), 'image/png')).status, 200)
      const first = await qr('logo=1&size=256')
      const etag = first.headers.etag as string
      assert.equal((await qr('logo=1&size=256', { 'if-none-match': etag })).status, 304)
      assert.notEqual((await qr('size=256')).headers.etag, etag, 'with and without the logo differ')

      assert.equal((await upload(pngLogo(160, [46, 125, 50]), 'image/png')).status, 200)
      const second = await qr('logo=1&size=256', { 'if-none-match': etag })
      assert.equal(second.status, 200)
      assert.notEqual(second.headers.etag, etag)
      const code = decode(second.raw)
      near(code.rgb(128, 128), [46, 125, 50], 'the new logo, not a cached image of the old one')
      assert.equal(code.text, shortQr)
    })

    test("another workspace neither sees nor uses this workspace's logo", async () => {
      const bob = await s.createToken('bob')
      assert.equal((await s.request('GET', '/v1/workspace/logo', { token: bob })).status, 404)
      const link = await s.request('POST', '/v1/links', { json: { destination: 'https://bob.example/' }, token: bob })
      const bobQr = await s.request('GET', `/v1/links/${link.body.data.id}/qr?logo=1`, { token: bob })
      assert.equal(bobQr.status, 400)
      assert.equal(bobQr.body.error.param, 'logo')
      assert.equal((await s.request('DELETE', '/v1/workspace/logo', { token: bob })).status, 404)
      assert.equal((await s.request('GET', `/v1/links/${id}/qr?logo=1`, { token: bob })).status, 404, "alice's link stays hers")

      assert.equal((await upload(SVG_LOGO, 'image/svg+xml', bob)).status, 200)
      const alices = await s.request('GET', '/v1/workspace/logo')
      assert.equal(alices.headers['content-type'], 'image/png', "bob's upload left alice's logo alone")
    })
  })
}
