import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { chromiumMissing, DESKTOP, fitsTheScreen, PHONE, screenshot, startBrowsing, type Browsing } from '../../test/browser.js'
import { focusReaches, tabTo } from '../../test/keyboard.js'
const LONG_TEXT = `Here is everything about the order: ${'the blue one, size M, gift-wrapped, '.repeat(12)}thanks!`

/**
 * The Conversations page end to end, in a real Chromium against the real server: conversations and
 * messages made through the API (pinned, unread, read, one beyond the first page), then the list's
 * previews, unread tags, pinned group and search; a message sent with the keyboard alone; and a
 * 360 px screen, where an open conversation is its own view.
 */
describe('the conversations page in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing
  /** Conversation ids by contact or group id. */
  const ids: Record<string, string> = {}

  const conversation = async (key: { contact_id: string } | { group_id: string }, messages: { text: string; direction?: 'inbound' }[] = []) => {
    const created = await s.request('POST', '/v1/conversations', { json: key })
    assert.equal(created.status, 201)
    const id = created.body.id as string
    ids['contact_id' in key ? key.contact_id : key.group_id] = id
    for (const m of messages) assert.equal((await s.request('POST', `/v1/conversations/${id}/messages`, { json: m })).status, 201)
    return id
  }
  const get = async (id: string) => (await s.request('GET', `/v1/conversations/${id}`)).body

  before(async () => {
    s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    b = await startBrowsing(s)
    // The oldest, quiet one: 20 newer conversations push it off the first page.
    await conversation({ contact_id: 'c_old' })
    for (let i = 1; i <= 20; i++) await conversation({ contact_id: `c_filler_${i}` })
    // Pinned but the least recently active of those with messages: it still comes first.
    const pinned = await conversation({ group_id: 'g_team' }, [{ text: 'Team meeting moved to 3 pm' }])
    assert.equal((await s.request('PATCH', `/v1/conversations/${pinned}`, { json: { is_pinned: true } })).status, 200)
    assert.equal((await s.request('POST', `/v1/conversations/${pinned}/open`, { json: {} })).status, 200)
    const read = await conversation({ contact_id: 'c_read' }, [{ text: 'Your parcel left the depot', direction: 'inbound' }])
    assert.equal((await s.request('POST', `/v1/conversations/${read}/open`, { json: {} })).status, 200)
    await conversation({ contact_id: 'c_long' }, [{ text: LONG_TEXT, direction: 'inbound' }])
    await conversation({ contact_id: 'c_unread' }, [
      { text: 'Thanks for the quick answer', direction: 'inbound' },
      { text: 'Is the shop open on Sunday?', direction: 'inbound' },
    ])
  })
  after(async () => {
    await b?.close()
    await s?.close()
    assert.deepEqual(b.problems, [])
  })

  const row = (page: Page, key: string) => page.locator(`[data-conversation-row="${ids[key]}"]`)
  /** The rows' contact or group ids, top to bottom. */
  const order = async (page: Page) => {
    const shown = await page.locator('[data-conversation-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-conversation-row')))
    const byId = Object.fromEntries(Object.entries(ids).map(([key, id]) => [id, key]))
    return shown.map((id) => byId[id ?? ''])
  }

  test('the list: pinned first, each with its newest message and when, unread ones marked, a search', async () => {
    const page = await b.signedIn('member', DESKTOP)
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Conversations', exact: true }).click()
    await page.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor()
    await row(page, 'c_unread').getByText('Is the shop open on Sunday?').waitFor()

    const shown = await order(page)
    assert.deepEqual(shown.slice(0, 4), ['g_team', 'c_unread', 'c_long', 'c_read'], 'the pinned one first, then the most recently active')
    assert.ok(!shown.includes('c_old'), 'the oldest is on the next page')
    const groups = await page.locator('h2.conv-group').allInnerTexts()
    assert.deepEqual(
      groups.map((g) => g.toLowerCase()),
      ['pinned', 'others'],
    )
    assert.equal(await page.locator('.conv-list').first().locator('[data-conversation-row]').count(), 1, 'the pinned group holds the pinned one only')

    // The newest message, "You:" for one sent, and when.
    assert.match(await row(page, 'g_team').innerText(), /You: Team meeting moved to 3 pm/)
    assert.doesNotMatch(await row(page, 'c_unread').innerText(), /Thanks for the quick answer/, 'only the newest message')
    assert.match((await row(page, 'c_read').locator('time').getAttribute('datetime')) ?? '', /^\d{4}-\d\d-\d\dT/)
    assert.notEqual((await row(page, 'c_read').locator('time').innerText()).trim(), '')
    assert.match(await row(page, 'c_filler_20').innerText(), /No messages yet/)
    // A long message is one line, cut: its box is narrower than its text.
    const preview = row(page, 'c_long').locator('.conv-preview')
    const [scroll, client, height] = await preview.evaluate((e) => [e.scrollWidth, e.clientWidth, e.getBoundingClientRect().height])
    assert.ok(scroll > client, 'the preview is cut')
    assert.ok(height < 30, `one line (${height} px)`)

    // Unread: a message after the last opening, or never opened.
    assert.equal(await row(page, 'c_unread').getAttribute('data-unread'), 'true')
    assert.match(await row(page, 'c_unread').innerText(), /Unread/)
    assert.equal(await row(page, 'c_long').getAttribute('data-unread'), 'true')
    for (const read of ['c_read', 'g_team', 'c_filler_20']) {
      assert.equal(await row(page, read).getAttribute('data-unread'), null, `${read} is read`)
      assert.doesNotMatch(await row(page, read).innerText(), /Unread/)
    }
    await fitsTheScreen(page, 'the list at 1440 px')
    await screenshot(page, 'conversations-list-1440')

    // Search: a message's text, an id's part, and an exact id that is on no page shown.
    const search = page.getByRole('searchbox', { name: 'Search conversations' })
    await search.fill('SUNDAY')
    await page.waitForFunction("document.querySelectorAll('[data-conversation-row]').length === 1")
    assert.deepEqual(await order(page), ['c_unread'])
    assert.equal(await page.locator('h2.conv-group').count(), 0, 'no pinned group without a pinned match')
    await search.fill('team')
    await page.waitForFunction("document.querySelectorAll('[data-conversation-row]').length === 1")
    assert.deepEqual(await order(page), ['g_team'])
    await search.fill('c_old')
    await row(page, 'c_old').waitFor()
    assert.deepEqual(await order(page), ['c_old'])
    await search.fill('nothing like this')
    await page.getByText('No conversation here matches “nothing like this”.').waitFor()
    await search.fill('')
    await row(page, 'c_read').waitFor()
  })

  test('keyboard only: open an unread conversation (it is read), send a message without choosing a direction', async () => {
    const page = await b.signedIn('member', DESKTOP)
    await page.goto('/app/conversations')
    const unread = row(page, 'c_unread')
    await unread.getByText('Is the shop open on Sunday?').waitFor()
    assert.equal(await unread.getAttribute('data-unread'), 'true')

    await tabTo(page, unread.getByRole('link'), 120)
    await page.keyboard.press('Enter')
    const heading = page.getByRole('heading', { name: 'Contact c_unread', level: 2 })
    await focusReaches(heading)
    assert.equal(new URL(page.url()).pathname, `/app/conversations/${ids.c_unread}`)
    await page.locator('.message', { hasText: 'Is the shop open on Sunday?' }).waitFor()
    assert.notEqual((await get(ids.c_unread!)).last_opened_at, null, 'opening it called open')
    await unread.and(page.locator(':not([data-unread])')).waitFor()
    assert.doesNotMatch(await unread.innerText(), /Unread/)
    assert.equal(await unread.getByRole('link').getAttribute('aria-current'), 'page')

    // No direction to choose: the person writing sends.
    assert.equal(await page.getByLabel('Direction').count(), 0)
    assert.equal(await page.getByText(/inbound/i).count(), 0)
    await tabTo(page, page.getByLabel('Message'), 120)
    await page.keyboard.type('Yes, from 10 to 4')
    await tabTo(page, page.getByRole('button', { name: 'Send', exact: true }), 120)
    await page.keyboard.press('Enter')
    await page.locator('.message.outbound', { hasText: 'Yes, from 10 to 4' }).waitFor()
    assert.equal(await page.getByLabel('Message').inputValue(), '', 'the composer is emptied')
    const newest = (await s.request('GET', `/v1/conversations/${ids.c_unread}/messages?limit=1`)).body.data[0]
    assert.equal(newest.text, 'Yes, from 10 to 4')
    assert.equal(newest.direction, 'outbound')
    // The list shows it, and what one writes oneself is not unread.
    await unread.getByText('You: Yes, from 10 to 4').waitFor()
    assert.equal(await unread.getAttribute('data-unread'), null)
    const saved = await get(ids.c_unread!)
    assert.ok(saved.last_opened_at >= saved.last_active_at, 'opened again after sending')

    // Ctrl+Enter sends too.
    await page.getByLabel('Message').focus()
    await page.keyboard.type('See you then')
    await page.keyboard.press('Control+Enter')
    await page.locator('.message.outbound', { hasText: 'See you then' }).waitFor()
    await unread.getByText('You: See you then').waitFor()
    await fitsTheScreen(page, 'an open conversation at 1440 px')
    await screenshot(page, 'conversations-open-1440')
  })

  test('at 360 px: the list alone, a conversation opens as its own view with a way back, nothing scrolls sideways', async () => {
    const page = await b.signedIn('member', PHONE)
    await page.goto('/app/conversations')
    const read = row(page, 'c_read')
    await read.getByText('Your parcel left the depot').waitFor()
    assert.ok(!(await page.getByText('Pick a conversation to read it.').isVisible()), 'no empty reading pane under the list')
    await fitsTheScreen(page, 'the list at 360 px')
    await screenshot(page, 'conversations-list-360')

    await read.getByRole('link').tap()
    const heading = page.getByRole('heading', { name: 'Contact c_read', level: 2 })
    await focusReaches(heading)
    assert.equal(new URL(page.url()).pathname, `/app/conversations/${ids.c_read}`)
    const box = await heading.boundingBox()
    assert.ok(box && box.y >= 0 && box.y + box.height <= 780, `the heading is on the screen (${JSON.stringify(box)})`)
    assert.ok(!(await read.isVisible()), 'the list is hidden')
    assert.ok(!(await page.getByRole('searchbox', { name: 'Search conversations' }).isVisible()))
    await page.locator('.message', { hasText: 'Your parcel left the depot' }).waitFor()
    assert.ok(await page.getByRole('button', { name: 'Send', exact: true }).isVisible())
    await fitsTheScreen(page, 'a conversation at 360 px')
    await screenshot(page, 'conversations-open-360')

    const back = page.getByRole('link', { name: 'Back to conversations' })
    await back.tap()
    await read.waitFor()
    assert.equal(new URL(page.url()).pathname, '/app/conversations')
    assert.ok(!(await back.isVisible()))
    await fitsTheScreen(page, 'back at the list at 360 px')

    // A long message, and a long contact id, still fit.
    await row(page, 'c_long').getByRole('link').tap()
    await page.getByRole('heading', { name: 'Contact c_long', level: 2 }).waitFor()
    await page.locator('.message', { hasText: 'gift-wrapped' }).waitFor()
    await fitsTheScreen(page, 'a long message at 360 px')

    // On a wide screen the same address shows the list beside the conversation, with no way "back".
    await page.setViewportSize({ width: 1440, height: 900 })
    assert.ok(await row(page, 'c_read').isVisible())
    assert.ok(!(await page.getByRole('link', { name: 'Back to conversations' }).isVisible()))
  })

  test('a viewer reads conversations without marking them read, and is offered no composer', async () => {
    const id = await conversation({ contact_id: 'c_for_viewer' }, [{ text: 'Hello, anyone there?', direction: 'inbound' }])
    const page = await b.signedIn('viewer', DESKTOP)
    await page.goto(`/app/conversations/${id}`)
    await focusReaches(page.getByRole('heading', { name: 'Contact c_for_viewer', level: 2 }))
    await page.locator('.message', { hasText: 'Hello, anyone there?' }).waitFor()
    assert.equal(await page.getByLabel('Message').count(), 0)
    assert.equal(await page.getByRole('button', { name: 'Pin' }).count(), 0)
    assert.equal((await get(id)).last_opened_at, null, 'a viewer cannot open it (conversations:write)')
    assert.equal(await row(page, 'c_for_viewer').getAttribute('data-unread'), 'true')
  })
})
