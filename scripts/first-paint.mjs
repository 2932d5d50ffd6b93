// Measures how soon the dashboard's links page shows its first row over 200 links, in Debian's
// Chromium against a throwaway server on this machine: from the navigation's start to the frame after
// the first row is in the page, cold (a new browser profile: nothing cached) and warm (a reload), as
// medians and the slowest of the runs. The figures go in docs/performance.md by hand: a timing on a
// shared machine is a measurement to read, not a test to pass.
// Usage: npm run build && node scripts/first-paint.mjs [runs, default 15]
import { launchChromium } from '../dist/test/browser.js'
import { startTestServer } from '../dist/test/build-test-app.js'
import { seedDemoWorkspace, signInAsDemoOwner } from '../dist/test/demo-workspace.js'

const RUNS = Number(process.argv[2] ?? 15)
const FIRST_ROW = 'tr[data-link]'

// Runs in the page before its own scripts (the DevTools protocol, which its CSP does not govern): the
// time of the frame after the first row appears, and of the first contentful paint.
const probe = `
  new MutationObserver((_, observer) => {
    if (!document.querySelector('${FIRST_ROW}')) return
    observer.disconnect()
    requestAnimationFrame(() => (window.firstRowAt = performance.now()))
  }).observe(document, { childList: true, subtree: true })
`

const s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'off', LOG_LEVEL: 'silent' } })
const browser = await launchChromium()
try {
  await seedDemoWorkspace(s, { moreLinks: 192 })
  const options = { baseURL: `http://${s.host}`, viewport: { width: 1440, height: 900 } }
  const signIn = await browser.newContext(options)
  await signInAsDemoOwner(await signIn.newPage())
  const storageState = await signIn.storageState()
  await signIn.close()

  const measure = async (page) => {
    await page.locator(FIRST_ROW).first().waitFor()
    // Polled: the page's CSP allows no waitForFunction.
    for (let i = 0; i < 200 && (await page.evaluate('window.firstRowAt')) === undefined; i++) await page.waitForTimeout(10)
    return page.evaluate(`({
      row: window.firstRowAt,
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      script: performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.js')).reduce((n, e) => n + e.encodedBodySize, 0),
    })`)
  }
  const cold = []
  const warm = []
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ ...options, storageState })
    await context.addInitScript(probe)
    const page = await context.newPage()
    await page.goto('/app/')
    cold.push(await measure(page))
    await page.reload()
    warm.push(await measure(page))
    await context.close()
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const line = (name, runs) => {
    const rows = runs.map((r) => r.row)
    const fcps = runs.map((r) => r.fcp)
    return `${name}: first row ${median(rows).toFixed(0)} ms median, ${Math.max(...rows).toFixed(0)} ms slowest; first contentful paint ${median(fcps).toFixed(0)} ms median`
  }
  console.log(`links page, 200 links, 1440x900, ${RUNS} runs each; JavaScript transferred cold: ${(cold[0].script / 1024).toFixed(1)} KB`)
  console.log(line('cold', cold))
  console.log(line('warm', warm))
} finally {
  await browser.close()
  await s.close()
}
