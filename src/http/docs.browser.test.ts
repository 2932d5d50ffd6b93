import assert from 'node:assert/strict'
import { networkInterfaces } from 'node:os'
import { after, before, describe, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { createTestDatabase, type TestDatabase } from '../../test/build-test-app.js'
import { freePort } from '../../test/free-port.js'
import { startServerProcess, type ServerProcess } from '../../test/process.js'
import { chromiumMissing, launchChromium } from '../../test/browser.js'

/** An address of this machine other than loopback: browsers treat localhost as secure, any other host not. */
const lanAddress = () =>
  Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address

describe('/docs in a real browser over plain HTTP at a LAN address', { skip: chromiumMissing }, () => {
  let database: TestDatabase
  let server: ServerProcess
  let browser: Browser
  let address: string
  before(async () => {
    const lan = lanAddress()
    assert.ok(lan, 'this machine has a non-loopback IPv4 address')
    database = await createTestDatabase()
    const port = String(await freePort())
    address = `${lan}:${port}`
    server = await startServerProcess({ ...database.env, PORT: port, HOST: '0.0.0.0' })
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    server?.child.kill('SIGTERM')
    await server?.exited
    await database?.drop()
  })

  test("the reference renders every operation, under Linkline's title", async () => {
    const page = await browser.newPage()
    const blocked: string[] = []
    // Swagger UI sets one inline style, which the plugin's style-src refuses, harmlessly: anything else counts.
    page.on('console', (m) => m.type() === 'error' && !/^Applying inline style violates/.test(m.text()) && blocked.push(m.text()))
    page.on('requestfailed', (r) => blocked.push(`${r.url()} ${r.failure()?.errorText}`))
    const response = await page.goto(`http://${address}/docs/`)
    assert.equal(response?.status(), 200)
    await page.waitForSelector('.opblock', { timeout: 15_000 }).catch(() => assert.fail(`no operation rendered; ${blocked.join('; ')}`))
    const summaries = await page.locator('.opblock-summary-description').allTextContents()
    assert.ok(summaries.length >= 20, `every operation is listed (${summaries.length})`)
    assert.ok(summaries.some((s) => /link/i.test(s)))
    assert.equal(await page.title(), 'Linkline API')
    assert.equal(await page.locator('.topbar').isVisible(), false, 'no framework top bar')
    assert.deepEqual(blocked, [])
  })
})
