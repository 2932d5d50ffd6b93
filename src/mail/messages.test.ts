import assert from 'node:assert/strict'
import { test } from 'node:test'
import { escapeHtml, invitationMessage, oneLine, passwordResetMessage } from './messages.js'

const EXPIRES = Date.UTC(2026, 10, 27, 10, 30)
const URL_ = 'https://links.example.com/app/invite/inv-secret-123'

test('an invitation names the workspace, role, inviter, link and expiry in text and HTML', () => {
  const mail = invitationMessage({ to: 'bob@example.org', workspaceName: 'Acme', role: 'admin', invitedBy: 'Alice', url: URL_, expiresAt: EXPIRES })
  assert.equal(mail.to, 'bob@example.org')
  assert.equal(mail.subject, 'Invitation to join Acme on Linkline')
  assert.equal(
    mail.text,
    [
      'Alice invited you to join the workspace "Acme" on Linkline as an admin.',
      '',
      'Accept the invitation:',
      URL_,
      '',
      'The link works once and expires on 27 November 2026, 10:30 UTC.',
      'If you did not expect this invitation, ignore this mail.',
      '',
    ].join('\n'),
  )
  assert.ok(mail.html?.includes(`<a href="${URL_}">Accept the invitation</a>`))
  assert.ok(mail.html?.includes('<strong>Acme</strong>'))
  assert.ok(mail.html?.includes('as a member') === false && mail.html.includes('as an admin'))
  const anonymous = invitationMessage({ to: 'bob@example.org', workspaceName: 'Acme', role: 'member', invitedBy: ' \n ', url: URL_, expiresAt: EXPIRES })
  assert.match(anonymous.text, /^You are invited to join the workspace "Acme" on Linkline as a member\.\n/)
})

test('a workspace name with CR/LF cannot add a header, nor a line of its own to the body', () => {
  const mail = invitationMessage({
    to: 'bob@example.org',
    workspaceName: 'Acme\r\nBcc: eve@example.net\r\n\r\nClick https://evil.example',
    role: 'member',
    invitedBy: 'Mallory\nSupport',
    url: URL_,
    expiresAt: EXPIRES,
  })
  assert.doesNotMatch(mail.subject, /[\r\n]/)
  assert.equal(mail.subject, 'Invitation to join Acme Bcc: eve@example.net Click https://evil.example on Linkline')
  const firstLine = mail.text.split('\n')[0]
  assert.equal(firstLine, 'Mallory Support invited you to join the workspace "Acme Bcc: eve@example.net Click https://evil.example" on Linkline as a member.')
  assert.equal(mail.text.split('\n').length, 8, 'the body has exactly its own lines')
})

test('a long workspace name is cut, so the subject stays one short line', () => {
  const mail = invitationMessage({ to: 'bob@example.org', workspaceName: 'x'.repeat(500), role: 'member', url: URL_, expiresAt: EXPIRES })
  assert.equal(mail.subject, `Invitation to join ${'x'.repeat(100)} on Linkline`)
})

test('HTML bodies escape every value that comes from a person', () => {
  const mail = invitationMessage({
    to: 'bob@example.org',
    workspaceName: `<script>alert("x")</script> & 'co'`,
    role: 'member',
    invitedBy: '<img src=x onerror=alert(1)>',
    url: 'https://links.example.com/app/invite/a?b=1&c="2"',
    expiresAt: EXPIRES,
  })
  const html = mail.html ?? ''
  assert.ok(!html.includes('<script>') && !html.includes('<img'), html)
  assert.ok(html.includes('<strong>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</strong>'))
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt; invited you'))
  assert.ok(html.includes('href="https://links.example.com/app/invite/a?b=1&amp;c=&quot;2&quot;"'))
  assert.equal(escapeHtml(`<>&"'`), '&lt;&gt;&amp;&quot;&#39;')
})

test('a link must be an absolute http(s) URL on one line', () => {
  for (const url of ['javascript:alert(1)', '/app/invite/x', 'https://links.example.com/a\r\nb']) {
    assert.throws(() => invitationMessage({ to: 'bob@example.org', workspaceName: 'Acme', role: 'member', url, expiresAt: EXPIRES }), TypeError, url)
    assert.throws(() => passwordResetMessage({ to: 'bob@example.org', url, expiresAt: EXPIRES }), TypeError, url)
  }
})

test('a password reset has a fixed subject, the account, the link and its expiry', () => {
  const url = 'https://links.example.com/app/reset/rst-secret-456'
  const mail = passwordResetMessage({ to: 'bob@example.org', url, expiresAt: EXPIRES })
  assert.equal(mail.to, 'bob@example.org')
  assert.equal(mail.subject, 'Set a new Linkline password')
  assert.equal(
    mail.text,
    [
      'A new password was asked for the Linkline account bob@example.org.',
      '',
      'Set a new password:',
      url,
      '',
      'The link works once and expires on 27 November 2026, 10:30 UTC.',
      'If you did not ask for it, ignore this mail: your password stays as it is.',
      '',
    ].join('\n'),
  )
  assert.ok(mail.html?.includes(`<a href="${url}">Set a new password</a>`))
})

test('oneLine folds control characters and whitespace runs, and cuts', () => {
  assert.equal(oneLine('  a\r\n\tb\u2028c\u0000d  ', 100), 'a b c d')
  assert.equal(oneLine('abc def', 4), 'abc')
})
