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

/** Tab to `target` (at most `presses` times), then press `key` on it. */
export async function press(page: Page, target: Locator, key = 'Enter', presses = 120): Promise<void> {
  await tabTo(page, target, presses)
  await page.keyboard.press(key)
}

/** A section of the navigation, by the keyboard; on a phone through Menu first. */
export async function pressSection(page: Page, name: string): Promise<void> {
  const sections = page.getByRole('navigation', { name: 'Sections' })
  const menu = sections.getByRole('button', { name: 'Menu', exact: true })
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) === 'false') await press(page, menu)
  await press(page, sections.getByRole('link', { name, exact: true }))
}
