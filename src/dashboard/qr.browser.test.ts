import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import jsqr from 'jsqr'
import type { BrowserContextOptions, Page, Response } from 'playwright-core'
import { PNG } from 'pngjs'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { chromiumMissing, DESKTOP, fitsTheScreen, PHONE, startBrowsing, type Browsing } from '../../test/browser.js'
import type { Role } from '../accounts/roles.js'

// jsqr is CommonJS typed as an ES module: under NodeNext its default export is `module.exports.default`.
const jsQR = jsqr.default
const BLUE = [21, 101, 192]

/** A logo: a blue square on transparent pixels. */
function pngLogo(): Buffer {
  const side = 120
  const png = new PNG({ width: side, height: side })
  for (let y = 0; y < side; y++) for (let x = 0; x < side; x++) if (x > 20 && x < 100 && y > 20 && y < 100) png.data.set([...BLUE, 255], (y * side + x) * 4)
  return PNG.sync.write(png)
}
const SVG_LOGO = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="#2e7d32"/></svg>'

/** Reads a PNG (an answer of the API, or a screenshot of what the page shows) with an independent decoder. */
function decode(png: Buffer) {
  const image = PNG.sync.read(png)
  const code = jsQR(new Uint8ClampedArray(image.data), image.width, image.height)
  assert.ok(code, 'the image holds a readable QR code')
  const rgb = (x: number, y: number) => [...image.data.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 3)]
  return { text: code.data, width: image.width, rgb }
}
const near = (actual: number[], expected: number[], what: string) =>
  assert.ok(
    actual.every((v, i) => Math.abs(v - (expected[i] as number)) <= 10),
    `${what}: ${actual} ≈ ${expected}`,
  )

/**
 * The QR card of the link page in a real Chromium against the real server: a workspace logo uploaded
 * from a file, the code with the logo and chosen colours (what the API answered and what the page
 * shows both decode to the short URL), an SVG logo, removal, a member who may not change the logo,
 * and no sideways scrolling at 1440 and 360 px.
 */
describe('the QR card with colours and a logo in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing
  let linkId: string
  let shortQr: string

  before(async () => {
    s = await startTestServer()
    const link = await s.request('POST', '/v1/links', { json: { destination: 'https://shop.example/brand', path: '/brand' } })
    linkId = link.body.data.id
    shortQr = `http://${s.host}/brand?qr=1`
    b = await startBrowsing(s)
  })
  after(async () => {
    await b?.close()
    await s?.close()
    assert.deepEqual(b.problems, [])
  })

  const signedIn = async (role: Role, options: BrowserContextOptions) => {
    const page = await b.signedIn(role, options)
    await page.goto(`/app/links/${linkId}`)
    await page.getByRole('heading', { name: 'QR code' }).waitFor()
    return page
  }
  /**
   * The next code the preview asks the API for whose query holds every one of `parts`, fetched again
   * at the same URL with the page's session (Chromium keeps no body of an answer the page read as a blob).
   */
  const nextCode = async (page: Page, ...parts: string[]) => {
    const answer = await page.waitForResponse(
      (r: Response) => r.url().includes(`/v1/links/${linkId}/qr?`) && parts.every((p) => r.url().includes(p)) && r.status() === 200,
    )
    const again = await page.request.get(answer.url())
    return { url: answer.url(), body: await again.body() }
  }
  const preview = (page: Page) => page.locator('.qr-preview img')
  /** The preview as Chromium drew it, once the image in it is the one asked for. */
  const shown = async (page: Page, format: string) => {
    await page.locator(`.qr-preview img[data-format="${format}"]`).waitFor()
    await page.waitForFunction("document.querySelector('.qr-preview img')?.complete === true")
    return decode(await preview(page).screenshot())
  }

  test('an admin uploads a PNG logo; the code with the logo and chosen colours decodes to the short URL, as answered and as shown', async () => {
    const page = await signedIn('admin', DESKTOP)
    const card = page.getByTestId('qr-logo')
    await card.getByText('Add a logo').waitFor()
    assert.equal(await page.getByRole('checkbox', { name: 'With logo' }).count(), 0, 'no toggle without a logo')

    const withLogo = nextCode(page, 'logo=true')
    await page.locator('input[name="logo-file"]').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: pngLogo() })
    const toggle = page.getByRole('checkbox', { name: 'With logo' })
    await toggle.waitFor()
    assert.ok(await toggle.isChecked(), 'a new logo is put on the code at once')
    const answered = decode((await withLogo).body)
    assert.equal(answered.text, shortQr)
    near(answered.rgb(answered.width / 2, answered.width / 2), BLUE, 'the logo in the centre')
    assert.equal((await shown(page, 'png')).text, shortQr)

    // Off and on again.
    const plain = page.waitForResponse((r) => r.url().includes('/qr?') && !r.url().includes('logo='))
    await toggle.uncheck()
    const without = decode(await (await page.request.get((await plain).url())).body())
    assert.notDeepEqual(without.rgb(without.width / 2, without.width / 2), answered.rgb(answered.width / 2, answered.width / 2))
    const again = nextCode(page, 'logo=true')
    await toggle.check()
    await again

    // Colours: dark blue modules on cream, the logo still in the middle.
    const coloured = nextCode(page, 'logo=true', 'color=%231a237e', 'background=%23fffde7')
    await page.locator('input[name="color"]').fill('#1a237e')
    await page.locator('input[name="background"]').fill('#fffde7')
    const colouredBody = (await coloured).body
    const code = decode(colouredBody)
    assert.equal(code.text, shortQr)
    near(code.rgb(2, 2), [255, 253, 231], 'the background colour')
    near(code.rgb(code.width / 2, code.width / 2), BLUE, 'the logo')
    const pixels = PNG.sync.read(colouredBody)
    assert.ok(
      pixels.data.some((_, i) => i % 4 === 0 && pixels.data[i] === 0x1a && pixels.data[i + 1] === 0x23 && pixels.data[i + 2] === 0x7e),
      'modules in the chosen colour',
    )
    assert.equal((await shown(page, 'png')).text, shortQr)

    // Downloads carry the same options.
    for (const format of ['png', 'svg']) {
      const href = await page.getByRole('link', { name: `Download ${format.toUpperCase()}` }).getAttribute('href')
      const query = new URLSearchParams(String(href).split('?')[1])
      assert.deepEqual(
        [query.get('format'), query.get('logo'), query.get('color'), query.get('background'), query.get('download')],
        [format, '1', '#1a237e', '#fffde7', '1'],
      )
    }

    // SVG with the PNG logo, as Chromium draws it.
    const svg = nextCode(page, 'logo=true', 'format=svg')
    await page.getByLabel('Format').selectOption('svg')
    assert.match((await svg).body.toString(), /<image [^>]*xlink:href="data:image\/png;base64,/)
    assert.equal((await shown(page, 'svg')).text, shortQr)
    await page.screenshot({ path: '/tmp/qr-card-desktop.png', fullPage: true })
    await fitsTheScreen(page, '1440 px')
  })

  test('an SVG logo: the preview turns SVG and PNG downloads go away; then the logo is removed', async () => {
    const page = await signedIn('admin', DESKTOP)
    const toggle = page.getByRole('checkbox', { name: 'With logo' })
    await toggle.waitFor()
    await page.locator('input[name="logo-file"]').setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: Buffer.from(SVG_LOGO) })
    await page.getByText('An SVG logo goes on SVG codes only.').waitFor()
    assert.equal((await shown(page, 'svg')).text, shortQr)
    assert.ok(await page.getByRole('link', { name: 'Download SVG' }).isVisible())
    assert.equal(await page.getByRole('link', { name: 'Download PNG' }).isVisible(), false)
    await page.screenshot({ path: '/tmp/qr-card-svg-logo.png', fullPage: true })

    // A file that is not an image is refused with a sentence, and nothing changes.
    await page.locator('input[name="logo-file"]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') })
    await page.getByText(/choose a PNG or SVG image/i).waitFor()

    await page.getByRole('button', { name: 'Remove logo' }).click()
    await page.getByText('Add a logo').waitFor()
    assert.equal(await toggle.count(), 0)
    assert.equal((await s.request('GET', '/v1/workspace/logo')).status, 404)
    assert.equal((await shown(page, 'png')).text, shortQr)
  })

  test('360 px: the card fits; a member sees the toggle but may not change the logo', async () => {
    assert.equal((await s.request('PUT', '/v1/workspace/logo', { raw: pngLogo(), headers: { 'content-type': 'image/png' } })).status, 200)
    const admin = await signedIn('admin', PHONE)
    await page360(admin, '/tmp/qr-card-360-admin.png')
    assert.ok(await admin.getByText('Replace logo').isVisible())

    const member = await signedIn('member', PHONE)
    const toggle = member.getByRole('checkbox', { name: 'With logo' })
    await toggle.waitFor()
    assert.equal(await member.locator('input[name="logo-file"]').count(), 0)
    assert.equal(await member.getByRole('button', { name: 'Remove logo' }).count(), 0)
    const withLogo = nextCode(member, 'logo=true')
    await toggle.check()
    assert.equal(decode((await withLogo).body).text, shortQr)
    await page360(member, '/tmp/qr-card-360-member.png')
  })

  const page360 = async (page: Page, path: string) => {
    await page.getByTestId('qr-logo').scrollIntoViewIfNeeded()
    await page.screenshot({ path, fullPage: true })
    await fitsTheScreen(page, '360 px')
  }
})
