// Writes the dashboard's screenshots in docs/screenshots/: every screen at 1440 and 360 px, over the
// demo workspace (test/demo-workspace.ts) on a throwaway server, in Debian's Chromium. Each picture is
// the first screenful (not the whole page) with at most 256 colours, to keep the repository small.
// Usage: npm run screenshots (builds first; CHROMIUM_PATH as for the browser tests)
import { mkdirSync, writeFileSync } from 'node:fs'
import { crc32, deflateSync } from 'node:zlib'
import { buildPaletteSync, utils } from 'image-q'
import pngjs from 'pngjs'
import { launchChromium } from '../dist/test/browser.js'
import { startTestServer } from '../dist/test/build-test-app.js'
import { seedDemoWorkspace, signInAsDemoOwner } from '../dist/test/demo-workspace.js'

const OUT = new URL('../docs/screenshots/', import.meta.url)
const WIDTHS = [
  { width: 1440, options: { viewport: { width: 1440, height: 900 } } },
  { width: 360, options: { viewport: { width: 360, height: 780 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 } },
]
/** Each screen: its file name, where it is, and what to do once there (wait for it, open a form). */
const signedOut = [
  { name: 'sign-in', path: () => '/app/', ready: (page) => page.getByLabel('Email').waitFor() },
  { name: 'public-stats', path: (demo) => `/app/public/${demo.publicLinkId}`, ready: (page) => page.getByRole('heading', { level: 1 }).waitFor() },
]
const signedIn = [
  ...[
    ['links', '/app/', 'Links'],
    ['analytics', '/app/analytics', 'Analytics'],
    ['conversations', '/app/conversations', 'Conversations'],
    ['domains', '/app/domains', 'Domains'],
    ['webhooks', '/app/webhooks', 'Webhooks'],
    ['import-export', '/app/import', 'Import & export'],
    ['tokens', '/app/tokens', 'API tokens'],
    ['members', '/app/members', 'Members'],
    ['audit-log', '/app/audit', 'Audit log'],
  ].map(([name, path, heading]) => ({
    name,
    path: () => path,
    ready: (page) => page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor(),
  })),
  { name: 'link', path: (demo) => `/app/links/${demo.ids['/spring-sale']}`, ready: (page) => page.getByRole('heading', { level: 1 }).waitFor() },
  {
    name: 'link-form',
    path: () => '/app/',
    ready: async (page) => {
      await page.getByRole('button', { name: 'New link', exact: true }).click()
      const form = page.locator('form.link-form')
      await form.locator('[data-field="destination"] input').fill('https://shop.northwind.example/collections/summer')
      await form.locator('[data-field="domain"] select').selectOption('go.nw.example')
      await form.locator('[data-field="title"] input').fill('Summer collection')
    },
  },
]

/**
 * A screenshot as an indexed PNG of 256 colours or fewer: a screen of text and flat colours loses
 * nothing visible, and the file is a third of Chromium's true-colour one. Each colour is mapped to
 * the palette's nearest once, as the same few hundred recur all over the picture.
 */
function indexedPng(screenshot) {
  const { width, height, data } = pngjs.PNG.sync.read(screenshot)
  const palette = buildPaletteSync([utils.PointContainer.fromUint8Array(data, width, height)], { colors: 256, paletteQuantization: 'wuquant' })
  const colours = palette.getPointContainer().getPointArray()
  const nearest = new Map()
  const indexOf = (r, g, b) => {
    const key = (r << 16) | (g << 8) | b
    let best = nearest.get(key)
    if (best !== undefined) return best
    let least = Infinity
    colours.forEach((c, i) => {
      const d = (c.r - r) ** 2 + (c.g - g) ** 2 + (c.b - b) ** 2
      if (d < least) [least, best] = [d, i]
    })
    nearest.set(key, best)
    return best
  }
  // Each row: filter type 0 (none, the usual for indexed pictures), then a palette index per pixel.
  const rows = Buffer.alloc((width + 1) * height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4
      rows[y * (width + 1) + 1 + x] = indexOf(data[at], data[at + 1], data[at + 2])
    }
  }
  const chunk = (type, body) => {
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), body])
    const frame = Buffer.alloc(4)
    frame.writeUInt32BE(body.length)
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(typed))
    return Buffer.concat([frame, typed, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 3, 0, 0, 0], 8) // 8 bits per index, colour type 3 (indexed), deflate, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('PLTE', Buffer.from(colours.flatMap((c) => [c.r, c.g, c.b]))),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

const s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
const browser = await launchChromium()
try {
  const demo = await seedDemoWorkspace(s)
  mkdirSync(OUT, { recursive: true })
  for (const { width, options } of WIDTHS) {
    const context = await browser.newContext({ baseURL: `http://${s.host}`, timezoneId: 'UTC', locale: 'en-US', colorScheme: 'light', ...options })
    const page = await context.newPage()
    const shoot = async ({ name, path, ready }) => {
      await page.goto(path(demo))
      await ready(page)
      // Until nothing is loading any more (a page's data, statistics, the world map), and the focus ring is gone.
      await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' })
      await page.evaluate('document.activeElement?.blur()')
      const png = indexedPng(await page.screenshot({ animations: 'disabled', caret: 'hide' }))
      writeFileSync(new URL(`${name}-${width}.png`, OUT), png)
      console.log(`${name}-${width}.png  ${Math.round(png.length / 1024)} KB`)
    }
    for (const screen of signedOut) await shoot(screen)
    await signInAsDemoOwner(page)
    for (const screen of signedIn) await shoot(screen)
    await context.close()
  }
} finally {
  await browser.close()
  await s.close()
}
