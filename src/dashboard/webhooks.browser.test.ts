import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { button, chromiumMissing, DESKTOP, fitsTheScreen, PHONE, screenshot, startBrowsing, titleIs, type Browsing } from '../../test/browser.js'
import { focusReaches, press, pressSection, tabTo } from '../../test/keyboard.js'
import { startReceiver, type Receiver } from '../../test/webhook-receiver.js'

/**
 * The Webhooks page end to end, in a real Chromium against the real server, with a receiver on
 * loopback (hence LINKLINE_FETCH_ALLOW_PRIVATE): an endpoint added with the keyboard alone, its secret
 * read once, a test event delivered and signed, then replayed; the API's field errors at their field;
 * a 360 px screen; and a viewer, who reads but is offered nothing to change.
 */
describe('the webhooks page in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing
  let receiver: Receiver

  before(async () => {
    receiver = await startReceiver()
    s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'off', LINKLINE_FETCH_ALLOW_PRIVATE: 'true' } })
    b = await startBrowsing(s)
  })
  after(async () => {
    await b?.close()
    await s?.close()
    await receiver?.close()
    assert.deepEqual(b.problems, [])
  })

  /** An endpoint made through the API, with one test delivery in its log. */
  const endpointWithDelivery = async (path: string) => {
    const created = await s.request('POST', '/v1/webhooks', { json: { url: receiver.url(path), events: ['link.created'], description: 'Made by the API' } })
    assert.equal(created.status, 201)
    assert.equal((await s.request('POST', `/v1/webhooks/${created.body.data.id}/test`, { json: {} })).status, 202)
    await receiver.waitFor((all) => all.some((r) => r.path === path))
    return created.body.data as { id: string; url: string }
  }

  test('keyboard only: add an endpoint, copy its secret once, send a test, see it delivered, replay it, edit, disable, delete', async () => {
    const page = await b.signedIn('admin', DESKTOP)
    await pressSection(page, 'Webhooks')
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    await titleIs(page, 'Webhooks · Linkline')
    await page.getByText('No webhook endpoints').waitFor()

    // The form takes the focus; Esc closes it and gives the focus back.
    const newEndpoint = button(page, 'New endpoint')
    await press(page, newEndpoint)
    const url = page.getByLabel('Endpoint URL')
    await url.waitFor()
    await focusReaches(url)
    await page.keyboard.press('Escape')
    await page.getByRole('form', { name: 'New endpoint' }).waitFor({ state: 'detached' })
    await focusReaches(newEndpoint)

    // An address that is no URL: the API's error at its field.
    await page.keyboard.press('Enter')
    await url.waitFor()
    await press(page, page.getByRole('checkbox', { name: 'link.created' }), ' ')
    assert.ok(await page.getByRole('checkbox', { name: 'link.created' }).isChecked())
    await tabTo(page, url, 80, 'Shift+Tab')
    await page.keyboard.type('not a url')
    await page.keyboard.press('Enter')
    const urlError = page.locator('[data-field="url"] .field-error')
    await urlError.waitFor()
    assert.match(await urlError.innerText(), /url/i)

    const target = receiver.url('/hooks/keyboard')
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.type(target)
    await tabTo(page, page.getByLabel('Description'), 80)
    await page.keyboard.type('Keyboard receiver')
    await press(page, button(page, 'Create endpoint'))

    // The secret, once: focused so that it is read first, with a copy button.
    const shown = page.getByTestId('webhook-secret')
    await shown.waitFor()
    await focusReaches(shown)
    assert.match(await shown.innerText(), /You will not see it again/)
    await screenshot(page, 'webhooks-1440-secret')
    const secret = await shown.locator('code.secret').innerText()
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    await press(page, button(page, 'Copy secret'))
    await button(page, 'Copied').waitFor()
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret)
    await press(page, button(page, 'Done'))
    await shown.waitFor({ state: 'detached' })
    assert.equal(await page.getByText(secret).count(), 0, 'not shown again')

    const row = page.locator(`tr[data-webhook="${target}"]`)
    await row.waitFor()
    assert.match(await row.innerText(), /Keyboard receiver[\s\S]*link\.created[\s\S]*enabled/)

    // A test event: signed with that secret, and delivered in the log.
    await press(page, page.getByRole('button', { name: `Send test to ${target}` }))
    await receiver.waitFor((all) => all.some((r) => r.path === '/hooks/keyboard'))
    const first = receiver.received.find((r) => r.path === '/hooks/keyboard')!
    const headers = Object.fromEntries(Object.entries(first.headers).map(([k, v]) => [k, String(v)]))
    assert.deepEqual(new Webhook(secret).verify(first.body, headers), first.json)
    assert.equal(first.json.type, 'webhook.test')
    const log = page.getByTestId('delivery-log')
    const delivered = log.locator('tr[data-status="delivered"]')
    await delivered.waitFor()
    const text = await delivered.innerText()
    assert.match(text, /webhook\.test/)
    assert.match(text, /200/)
    assert.match(text, /ok/)
    assert.match(text, new RegExp(first.headers['webhook-id'] as string))

    // Replay: the same event again, with the same webhook-id.
    await press(page, log.getByRole('button', { name: /^Replay webhook\.test/ }))
    await receiver.waitFor((all) => all.filter((r) => r.path === '/hooks/keyboard').length === 2)
    const again = receiver.received.filter((r) => r.path === '/hooks/keyboard')[1]!
    assert.equal(again.headers['webhook-id'], first.headers['webhook-id'])
    await log.locator('tr[data-status="delivered"]').waitFor()
    await screenshot(page, 'webhooks-1440')

    // Edit the description, then disable and enable it again.
    await press(page, page.getByRole('button', { name: `Edit ${target}` }))
    await focusReaches(url)
    await tabTo(page, page.getByLabel('Description'), 80)
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.type('CRM sync')
    await page.keyboard.press('Enter')
    await row.getByText('CRM sync').waitFor()
    await press(page, page.getByRole('button', { name: `Disable ${target}` }))
    await row.getByText('disabled').waitFor()
    await press(page, page.getByRole('button', { name: `Enable ${target}` }))
    await row.getByText('enabled').waitFor()

    // Delete, after a confirmation.
    await press(page, page.getByRole('button', { name: `Delete ${target}` }))
    await row.waitFor({ state: 'detached' })
    assert.match(b.dialogs.at(-1) ?? '', /Delete the endpoint .*hooks\/keyboard/)
    await focusReaches(newEndpoint)
    assert.equal((await s.request('GET', '/v1/webhooks')).body.data.length, 0)
  })

  test('at 360 px: cards, no sideways scrolling, the form and the log fit', async () => {
    const hook = await endpointWithDelivery('/hooks/narrow')
    const page = await b.signedIn('owner', PHONE)
    await page.goto('/app/webhooks')
    const row = page.locator(`tr[data-webhook="${hook.url}"]`)
    await row.waitFor()
    assert.equal(await page.evaluate<string>("getComputedStyle(document.querySelector('table.webhooks tbody tr')).display"), 'block', 'cards, not columns')
    await fitsTheScreen(page, 'the list')
    await page.getByRole('button', { name: `Deliveries of ${hook.url}` }).click()
    await page.getByTestId('delivery-log').locator('tr[data-status="delivered"]').waitFor()
    await fitsTheScreen(page, 'the delivery log')
    await screenshot(page, 'webhooks-360')
    await button(page, 'New endpoint').click()
    await page.getByLabel('Endpoint URL').fill('ftp://example.com/')
    await page.getByRole('checkbox', { name: 'link.clicked' }).check()
    await button(page, 'Create endpoint').click()
    await page.locator('[data-field="url"] .field-error').waitFor()
    await fitsTheScreen(page, 'the form with an error')
    await screenshot(page, 'webhooks-360-form')
    await s.request('DELETE', `/v1/webhooks/${hook.id}`)
  })

  test('a failing receiver: the log shows its status, error and answer, and when it is tried next', async () => {
    receiver.answer('/hooks/failing', 500, 'receiver is down')
    const created = await s.request('POST', '/v1/webhooks', { json: { url: receiver.url('/hooks/failing'), events: ['*'] } })
    assert.equal(created.status, 201)
    const page = await b.signedIn('admin', DESKTOP)
    await page.goto('/app/webhooks')
    const row = page.locator(`tr[data-webhook="${created.body.data.url}"]`)
    assert.match(await row.innerText(), /all events/)
    await row.getByRole('button', { name: /^Send test/ }).click()
    const failed = page.getByTestId('delivery-log').locator('tr[data-status="pending"]', { hasText: '500' })
    await failed.waitFor()
    const text = await failed.innerText()
    assert.match(text, /receiver is down/)
    assert.match(text, /Next attempt/)
    assert.equal(await failed.getByRole('button', { name: /^Replay/ }).count(), 0, 'a pending delivery is queued already')
    await s.request('DELETE', `/v1/webhooks/${created.body.data.id}`)
  })

  test('a viewer reads the endpoints and their log, and is offered nothing to change', async () => {
    const hook = await endpointWithDelivery('/hooks/viewer')
    const page = await b.signedIn('viewer', DESKTOP)
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Webhooks', exact: true }).click()
    const row = page.locator(`tr[data-webhook="${hook.url}"]`)
    await row.waitFor()
    await page.getByRole('button', { name: `Deliveries of ${hook.url}` }).click()
    await page.getByTestId('delivery-log').locator('tr[data-status="delivered"]').waitFor()
    for (const name of ['New endpoint', 'Send test', 'Edit', 'Disable', 'Enable', 'Delete', 'Replay'])
      assert.equal(await page.getByRole('button', { name }).count(), 0, `no ${name} button`)
    const status = await page.evaluate<number>(
      `fetch('/v1/webhooks/${hook.id}/test', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.status)`,
    )
    assert.equal(status, 403)
  })
})
