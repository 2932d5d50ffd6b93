import assert from 'node:assert/strict'
import type { Locator, Page } from 'playwright-core'

/** Keyboard-only steps for the dashboard's browser tests. */

export const isFocused = async (target: Locator) => (await target.and(target.page().locator(':focus')).count()) === 1

/** Waits until `target` has the focus (a page moves it once it has drawn what it opened). */
export const focusReaches = (target: Locator) => target.and(target.page().locator(':focus')).waitFor()

/** Tab (or Shift+Tab) until `target` has the focus, at most `presses` times: each test bounds its own walk. */
export async function tabTo(page: Page, target: Locator, presses: number, key = 'Tab'): Promise<void> {
  await target.waitFor()
  for (let i = 0; i < presses; i++) {
    if (await isFocused(target)) return
    await page.keyboard.press(key)
  }
  assert.fail(`${key} never reached ${target.toString()}`)
}
