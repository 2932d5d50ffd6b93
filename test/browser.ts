import { existsSync } from 'node:fs'
import type { BrowserContextOptions } from 'playwright-core'

/** Debian's chromium (`apt-get install chromium`); playwright-core downloads no browser of its own. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Why the browser tests cannot run here (a `skip` reason), or false; in CI, where every backend is required, a missing browser fails. */
export const chromiumMissing = existsSync(CHROMIUM) ? false : `needs Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`
if (chromiumMissing && process.env.LINKLINE_TEST_REQUIRE_ALL_BACKENDS === '1') throw new Error(chromiumMissing)

/** The screens every dashboard test looks at: a desktop and a phone. */
export const DEVICES: { name: string; options: BrowserContextOptions }[] = [
  { name: 'desktop', options: { viewport: { width: 1440, height: 900 } } },
  { name: 'phone', options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
]
