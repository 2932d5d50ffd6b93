import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import type { Role } from '../accounts/roles.js'
import {
  button,
  chromiumMissing,
  fetchInPage,
  field,
  fitsTheScreen,
  PASSWORD,
  SCREENS,
  screenshot,
  section,
  signIn,
  startBrowsing,
  type Browsing,
} from '../../test/browser.js'
import { focusReaches, isFocused, press, pressSection, tabTo } from '../../test/keyboard.js'

/**
 * People in the dashboard, end to end in a real Chromium against the real server: signing in with a
 * password, inviting someone who then joins (with the keyboard alone too), what each role is offered,
 * and what the API refuses whatever the page shows. At 1440 and 360 px.
 */
describe('people in the dashboard, in a real browser', { skip: chromiumMissing }, () => {
  let s: TestServer
  let b: Browsing

  before(async () => {
    s = await startTestServer({ env: { LINKLINE_DOMAIN_VERIFICATION: 'off' } })
    b = await startBrowsing(s)
    // A link in alice's workspace, for the people who join it to see.
    assert.equal((await s.request('POST', '/v1/links', { json: { destination: 'https://shop.example/spring', path: '/spring' } })).status, 201)
  })
  after(async () => {
    await b?.close()
    await s?.close()
  })

  const open = (options = {}) => b.open(options)
  const person = (email: string, name: string, role: Role, workspace = 'alice') => b.person(role, { email, name, workspace })

  for (const device of SCREENS) {
    test(`${device.name}: an owner invites a viewer, who joins with a name and password and can read but not write`, async () => {
      const ownerEmail = `owner-${device.name}@example.com`
      await person(ownerEmail, `Olivia ${device.name}`, 'owner')
      const owner = await open(device.options)
      await signIn(owner, ownerEmail)
      assert.match(await owner.getByTestId('who').innerText(), new RegExp(`Olivia ${device.name}`))
      await fitsTheScreen(owner, 'the links page')

      await (await section(owner, 'Members')).click()
      const viewerEmail = `viewer-${device.name}@example.com`
      const invite = owner.locator('form.invite')
      await invite.getByLabel('Email').fill(viewerEmail)
      await invite.locator('[data-field="role"] select').selectOption('viewer')
      await invite.getByRole('button', { name: 'Invite', exact: true }).click()
      const shown = owner.getByTestId('new-invitation')
      const url = await shown.locator('code').innerText()
      assert.match(await shown.innerText(), new RegExp(`Invitation for ${viewerEmail} as viewer`))
      assert.match(new URL(url).pathname, /^\/app\/invite\/[^/]+$/)
      await owner.locator(`tr[data-invitation="${viewerEmail}"]`).waitFor()
      await fitsTheScreen(owner, 'the members page')
      await screenshot(owner, `people-${device.name}-members`)

      // The viewer, in a browser of their own, opens the link, sets a name and password, and is in.
      const viewer = await open(device.options)
      await viewer.goto(new URL(url).pathname)
      await viewer.getByLabel('Your name').fill(`Victor ${device.name}`)
      await viewer.getByLabel('Password').fill(PASSWORD)
      await viewer.getByRole('button', { name: 'Join the workspace' }).click()
      await viewer.getByTestId('who').waitFor()
      assert.match(await viewer.getByTestId('who').innerText(), new RegExp(`Victor ${device.name}`))
      assert.equal(new URL(viewer.url()).pathname, '/app/', 'the secret leaves the address bar')
      await viewer.locator('tr[data-link]', { hasText: '/spring' }).waitFor()
      await fitsTheScreen(viewer, "the viewer's links page")
      // Offered only what a viewer may do…
      assert.equal(await viewer.getByRole('button', { name: 'New link' }).count(), 0)
      assert.equal(await viewer.getByRole('button', { name: 'Delete' }).count(), 0)
      assert.equal(await (await section(viewer, 'Audit log')).count(), 0)
      assert.equal(await (await section(viewer, 'Tokens')).count(), 0)
      await (await section(viewer, 'Members')).click()
      await viewer.locator(`tr[data-member="${ownerEmail}"]`).waitFor()
      assert.equal(await viewer.getByRole('heading', { name: 'Invite someone' }).count(), 0)
      assert.equal(await viewer.getByRole('button', { name: /Remove/ }).count(), 0)
      // …and the API refuses the rest whatever the page shows.
      assert.equal(await fetchInPage(viewer, 'POST', '/v1/links', { destination: 'https://example.com/not-allowed' }), 403)
      assert.equal(await fetchInPage(viewer, 'GET', '/v1/links'), 200)

      // The link worked once.
      const again = await open(device.options)
      await again.goto(new URL(url).pathname)
      await again.getByLabel('Your name').fill('Someone else')
      await again.getByLabel('Password').fill(PASSWORD)
      await again.getByRole('button', { name: 'Join the workspace' }).click()
      await again.getByTestId('link-gone').waitFor()
      assert.match(await again.getByTestId('link-gone').innerText(), /already used, or it has expired/)

      await owner.reload()
      const row = owner.locator(`tr[data-member="${viewerEmail}"]`)
      await row.waitFor()
      assert.equal(await row.getByRole('combobox').inputValue(), 'viewer')
      assert.equal(await owner.locator(`tr[data-invitation="${viewerEmail}"]`).count(), 0, 'no longer pending')
    })
  }

  for (const screen of SCREENS) {
    test(`${screen.name} px, keyboard only: an owner invites an admin, copies the one-time link, and it lets them in`, async () => {
      const { email } = await b.person('owner', { name: `Ines ${screen.name}` })
      const page = await open(screen.options)
      await signIn(page, email)
      await pressSection(page, 'Members')
      await focusReaches(page.getByRole('heading', { level: 1, name: 'Members' }))
      const form = page.locator('form.invite')
      const invitee = `keyboard-${screen.name}@example.com`
      await tabTo(page, form.getByLabel('Email'), 40)
      await page.keyboard.type(invitee)
      await page.keyboard.press('Tab')
      const role = form.getByLabel('Role')
      assert.ok(await isFocused(role), 'the role follows the email')
      // A closed select takes the first letters of an option.
      await page.keyboard.type('adm')
      assert.equal(await role.inputValue(), 'admin')
      await press(page, button(form, 'Invite'))

      // The one-time link takes the focus, is copied, and the focus goes back to the form.
      const shown = page.getByTestId('new-invitation')
      await focusReaches(shown)
      assert.match(await shown.innerText(), new RegExp(`Invitation for ${invitee} as admin`))
      const url = await shown.locator('code').innerText()
      assert.match(new URL(url).pathname, /^\/app\/invite\/[^/]+$/)
      await press(page, button(shown, 'Copy link'))
      await button(shown, 'Copied').waitFor()
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), url)
      await press(page, button(shown, 'Done'))
      await shown.waitFor({ state: 'detached' })
      await focusReaches(form.getByLabel('Email'))
      const row = page.locator(`tr[data-invitation="${invitee}"]`)
      await row.waitFor()
      assert.match(await row.innerText(), /admin/)
      const pending = (await s.request('GET', '/v1/invitations')).body.data as { email: string; role: string }[]
      assert.deepEqual(
        pending.filter((i) => i.email === invitee).map((i) => i.role),
        ['admin'],
      )
      await fitsTheScreen(page, 'the members page with the new invitation')

      // The link as copied: the invitee joins with it, by the keyboard too.
      const invited = await open(screen.options)
      await invited.goto(new URL(url).pathname)
      await tabTo(invited, invited.getByLabel('Your name'), 20)
      await invited.keyboard.type(`Ida ${screen.name}`)
      await tabTo(invited, invited.getByLabel('Password'), 20)
      await invited.keyboard.type(PASSWORD)
      await invited.keyboard.press('Enter')
      await invited.getByTestId('role').filter({ hasText: 'admin in alice' }).waitFor({ state: 'attached' })
      assert.match(await invited.getByTestId('who').innerText(), new RegExp(`Ida ${screen.name}`))
      assert.deepEqual(b.problems, [])
    })
  }

  test('an owner changes a role, cannot demote the last owner, makes a reset link, and switches workspace', async () => {
    const owner = await person('olga@example.com', 'Olga', 'owner', 'solo')
    await s.container.accounts.join(owner.id, 'alice', 'admin')
    const member = await person('max@example.com', 'Max', 'member', 'solo')
    const page = await open()
    await signIn(page, 'olga@example.com')
    await page.getByLabel('Workspace').selectOption('solo')
    await page.getByTestId('role').filter({ hasText: 'owner in solo' }).waitFor({ state: 'attached' })
    await (await section(page, 'Members')).click()

    const patched = () => page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/v1/members/'))
    let answer = patched()
    await page.getByLabel('Role of max@example.com').selectOption('admin')
    assert.equal((await answer).status(), 200)
    assert.equal(await s.container.accounts.roleOf(member.id, 'solo'), 'admin')

    answer = patched()
    await page.getByLabel('Role of olga@example.com').selectOption('member')
    assert.equal((await answer).status(), 409)
    await page.getByRole('alert').filter({ hasText: 'A workspace keeps at least one owner' }).waitFor()
    assert.equal(await page.getByLabel('Role of olga@example.com').inputValue(), 'owner', 'the select shows the role Olga still has')
    assert.equal(await s.container.accounts.roleOf(owner.id, 'solo'), 'owner')

    await page.getByRole('button', { name: 'Reset link for max@example.com' }).click()
    const reset = await page.getByTestId('reset-link').locator('code').innerText()
    assert.match(new URL(reset).pathname, /^\/app\/reset\/[^/]+$/)
    const max = await open()
    await max.goto(new URL(reset).pathname)
    await max.getByLabel('New password').fill('a brand new passphrase')
    await max.getByRole('button', { name: 'Set the new password' }).click()
    await max.getByText('Your new password is set. Sign in with it.').waitFor()
    await signIn(max, 'max@example.com', 'a brand new passphrase')

    await page.getByRole('button', { name: 'Remove max@example.com' }).click()
    await page.locator('tr[data-member="max@example.com"]').waitFor({ state: 'detached' })
    assert.equal(await s.container.accounts.roleOf(member.id, 'solo'), undefined)

    // Back in alice's workspace, as an admin: no owner among the roles Olga may hand out.
    await page.getByLabel('Workspace').selectOption('alice')
    await page.getByTestId('role').filter({ hasText: 'admin in alice' }).waitFor({ state: 'attached' })
    await (await section(page, 'Members')).click()
    assert.deepEqual(await page.locator('form.invite [data-field="role"] option').allInnerTexts(), ['viewer', 'member', 'admin'])
  })

  test('someone already signed in joins with their account, and then switches between the two workspaces', async () => {
    await person('jo@example.com', 'Jo', 'owner', 'jos-shop')
    const invitation = await s.request('POST', '/v1/invitations', { json: { email: 'jo@example.com', role: 'member' } })
    assert.equal(invitation.status, 201)
    const page = await open()
    await signIn(page, 'jo@example.com')
    assert.equal(await page.getByLabel('Workspace').count(), 0, 'one workspace: nothing to switch')
    await page.goto(new URL(invitation.body.data.url).pathname)
    await page.getByText('You are signed in as Jo').waitFor()
    await page.getByRole('button', { name: 'Join', exact: true }).click()
    await page.getByTestId('who').waitFor()
    assert.match((await page.getByTestId('role').textContent()) ?? '', /member in alice/)
    await page.locator('tr[data-link]', { hasText: '/spring' }).waitFor()
    await page.getByLabel('Workspace').selectOption('jos-shop')
    await page.getByTestId('role').filter({ hasText: 'owner in jos-shop' }).waitFor({ state: 'attached' })
    await page.getByText('No links yet').waitFor()
  })

  test("the first start's setup link makes the first owner and signs them in, once", async () => {
    const { url } = await s.container.setup.issue('fresh', `http://${s.host}`)
    const { pathname, search } = new URL(url)
    assert.equal(pathname, '/app/setup')
    const page = await open()
    await page.goto(pathname + search)
    await page.getByLabel('Email').fill('first@example.com')
    await page.getByLabel('Your name').fill('Frida First')
    const sent: string[] = []
    page.on('request', (r) => r.url().endsWith('/v1/setup') && sent.push(r.method()))
    await page.getByLabel('Password').fill('short')
    await page.getByRole('button', { name: 'Create my account' }).click()
    assert.match(await field(page, 'password').innerText(), /At least 10 characters/)
    assert.equal(await page.locator('[data-field="password"] input:invalid').count(), 1, 'a password under 10 characters is not sent')
    assert.deepEqual(sent, [])
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Create my account' }).click()
    await page.getByTestId('who').waitFor()
    assert.match((await page.getByTestId('role').textContent()) ?? '', /owner in fresh/)
    assert.equal(new URL(page.url()).search, '', 'the code leaves the address bar')

    const again = await open()
    await again.goto(pathname + search)
    await again.getByLabel('Email').fill('second@example.com')
    await again.getByLabel('Your name').fill('Someone else')
    await again.getByLabel('Password').fill(PASSWORD)
    await again.getByRole('button', { name: 'Create my account' }).click()
    await again.getByTestId('link-gone').waitFor()
  })

  test('the audit log shows what the API records, newest first', async () => {
    await person('ada@example.com', 'Ada', 'admin')
    const page = await open()
    await signIn(page, 'ada@example.com')
    await (await section(page, 'Audit log')).click()
    const rows = page.locator('tr[data-audit]')
    await rows.first().waitFor()
    const api = await page.evaluate<{ data: { action: string }[] }>("fetch('/v1/audit-log?limit=50').then((r) => r.json())")
    assert.equal(await rows.count(), api.data.length)
    assert.deepEqual(
      await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-audit'))),
      api.data.map((e) => e.action),
    )
    await screenshot(page, 'people-desktop-audit')
  })

  test('sign-in: single sign-on when the page says so, no password form when it is off, the refusal shown', async () => {
    const page = await open()
    // What a server with LINKLINE_OIDC_* and LINKLINE_PASSWORD_SIGNIN=off puts in the page (dashboard.test.ts checks that it does).
    await page.route(/\/app\/(\?.*)?$/, async (route) => {
      const response = await route.fetch()
      const html = (await response.text())
        .replace('<meta name="linkline-password-sign-in" content="on">', '<meta name="linkline-password-sign-in" content="off">')
        .replace('<meta charset="utf-8">', '<meta charset="utf-8"><meta name="linkline-sso" content="Acme ID">')
      await route.fulfill({ response, body: html })
    })
    await page.goto('/app/?sso_error=your%20address%20is%20not%20in%20an%20allowed%20domain')
    const sso = page.getByRole('link', { name: 'Sign in with Acme ID' })
    await sso.waitFor()
    assert.equal(await sso.getAttribute('href'), '/v1/auth/oidc/start')
    assert.equal(await page.getByLabel('Email').count(), 0, 'no password form')
    assert.match(await page.getByTestId('sso-error').innerText(), /your address is not in an allowed domain/)
    // Operators still have their way in.
    await page.getByText('Use an API token').click()
    await page.getByLabel('API token').fill(s.token)
    await page.getByRole('button', { name: 'Sign in with token' }).click()
    await page.getByTestId('who').waitFor()
    assert.equal(new URL(page.url()).search, '', 'the refusal leaves the address once signed in')
    assert.deepEqual(b.problems, [])
  })
})
