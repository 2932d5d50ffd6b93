import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../config.js'
import { isMailbox, isPlainAddress, parseSmtpUrl, redactSmtpUrl } from './addresses.js'

test('mail settings: unset URL sends nothing, From has a default', () => {
  const config = loadConfig({})
  assert.equal(config.smtpUrl, undefined)
  assert.equal(config.smtpFrom, 'Linkline <linkline@localhost>')
})

test('mail settings: smtp:// and smtps:// URLs, user and password percent-decoded', () => {
  const config = loadConfig({ LINKLINE_SMTP_URL: 'smtp://me%40example.com:p%40ss%3Aword@mail.example.com:2525' })
  assert.equal(config.smtpUrl, 'smtp://me%40example.com:p%40ss%3Aword@mail.example.com:2525')
  assert.deepEqual(parseSmtpUrl(config.smtpUrl), {
    host: 'mail.example.com',
    port: 2525,
    secure: false,
    auth: { user: 'me@example.com', pass: 'p@ss:word' },
  })
  assert.deepEqual(parseSmtpUrl('smtps://mail.example.com'), { host: 'mail.example.com', port: 465, secure: true, auth: undefined })
  assert.deepEqual(parseSmtpUrl('smtp://[::1]'), { host: '::1', port: 587, secure: false, auth: undefined })
})

test('mail settings: a bad URL is refused without repeating its password', () => {
  for (const [url, problem] of [
    ['http://user:hunter2-secret@mail.example.com', 'must start with smtp:// or smtps://'],
    ['smtp://user:hunter2-secret@mail.example.com/path', 'takes no path or query'],
    ['smtp://user:hunter2-secret@mail.example.com?pool=true', 'takes no path or query'],
    ['smtp://:hunter2-secret@mail.example.com', 'has a password but no user'],
    ['smtp://user:hunter2-secret%zz@mail.example.com', 'has a malformed percent-encoding'],
    ['user:hunter2-secret mail.example.com', 'must start with smtp:// or smtps://'],
    ['smtp:user:hunter2-secret@mail.example.com', 'must name a host'],
    ['smtp//user:hunter2-secret@mail.example.com', 'is not a URL'],
  ] as const) {
    assert.throws(
      () => loadConfig({ LINKLINE_SMTP_URL: url }),
      (error: Error) => {
        assert.ok(error instanceof ConfigError)
        assert.match(error.message, new RegExp(`LINKLINE_SMTP_URL ${problem.replace(/[?]/g, '\\$&')}`))
        assert.doesNotMatch(error.message, /hunter2/)
        return true
      },
      url,
    )
  }
})

test('mail settings: From must be one mailbox on one line', () => {
  assert.equal(loadConfig({ LINKLINE_SMTP_FROM: 'links@example.com' }).smtpFrom, 'links@example.com')
  assert.equal(loadConfig({ LINKLINE_SMTP_FROM: 'Example Links <links@example.com>' }).smtpFrom, 'Example Links <links@example.com>')
  for (const from of ['not an address', 'Links <links@example.com', 'a@example.com, b@example.com', 'Links\r\nBcc: x@example.com <links@example.com>']) {
    assert.throws(() => loadConfig({ LINKLINE_SMTP_FROM: from }), /LINKLINE_SMTP_FROM must be an address or Name <address>/, from)
  }
})

test('a recipient is one plain address: no name, list or line break', () => {
  assert.ok(isPlainAddress('alice+links@mail.example.com'))
  for (const to of ['Alice <alice@example.com>', 'a@example.com,b@example.com', 'a@example.com\r\nBcc: b@example.com', 'alice', '@example.com', 'alice@']) {
    assert.equal(isPlainAddress(to), false, to)
  }
  assert.ok(isMailbox('"Links" <links@example.com>') === false, 'quoted names are not needed, and not accepted')
})

test('the SMTP URL as logs show it: password masked, the rest kept', () => {
  assert.equal(redactSmtpUrl('smtp://me:hunter2@mail.example.com:587'), 'smtp://me:***@mail.example.com:587')
  assert.equal(redactSmtpUrl('smtps://mail.example.com'), 'smtps://mail.example.com')
  assert.equal(redactSmtpUrl('smtp://me:hunter2@mail.example.com/?password=hunter2'), 'smtp://me:***@mail.example.com')
  assert.equal(redactSmtpUrl('smtp:me:hunter2@mail.example.com'), '(not an smtp:// or smtps:// URL)')
  assert.equal(redactSmtpUrl('nonsense with hunter2'), '(not a URL)')
})
