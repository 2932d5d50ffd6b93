import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { after, describe, test } from 'node:test'
import { pino } from 'pino'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'
import { backends } from '../../test/backends.js'
import { createTestDatabase } from '../../test/build-test-app.js'
import { loadConfig } from '../config.js'
import { createContainer } from '../container.js'
import { createMailer, MailError, type Mailer, type MailFailure } from './mailer.js'

const USER = 'linkline@example.com'
const PASS = 'pa ss:w@rd-7f3e91'
const FROM = 'Example Links <links@example.com>'

interface Received {
  from: string | undefined
  to: string[]
  user: unknown
  raw: string
}

/** A real SMTP server on 127.0.0.1 that takes AUTH PLAIN/LOGIN without TLS (STARTTLS not offered). */
async function startSmtp(options: Partial<SMTPServerOptions> = {}) {
  const received: Received[] = []
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth: (auth, _session, callback) =>
      auth.username === USER && auth.password === PASS ? callback(null, { user: auth.username }) : callback(new Error('Invalid username or password')),
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const mailFrom = session.envelope.mailFrom
        received.push({
          from: mailFrom === false ? undefined : mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user,
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
    ...options,
  })
  server.listen(0, '127.0.0.1')
  await once(server.server, 'listening')
  const { port } = server.server.address() as AddressInfo
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** A TCP server whose connections get `speak(socket)` and nothing else (silent by default). */
async function startRawServer(speak: (socket: Socket) => void = () => {}) {
  const closed: Promise<void>[] = []
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    closed.push(once(socket, 'close').then(() => {}))
    socket.on('error', () => {})
    speak(socket)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    port,
    /** Resolves once every connection so far was closed (by the mailer). */
    allClosed: () => Promise.all(closed),
    close: () => {
      for (const socket of sockets) socket.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function capturedLogger() {
  const lines: string[] = []
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) }
}

/** Header values of a raw message, unfolded and lower-cased by name; the body after the blank line. */
function parse(raw: string) {
  const [head = '', ...rest] = raw.split('\r\n\r\n')
  const headers = new Map<string, string>()
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':')
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim())
  }
  return { headers, body: rest.join('\r\n\r\n') }
}

const decodeQuotedPrintable = (text: string) =>
  Buffer.from(
    text.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8')

async function expectFailure(mailer: Mailer, to: string, reason: MailFailure): Promise<MailError> {
  let caught: unknown
  await mailer.send({ to, subject: 'Hello', text: 'Hello' }).catch((error: unknown) => (caught = error))
  assert.ok(caught instanceof MailError, `expected a MailError, got ${String(caught)}`)
  assert.equal(caught.reason, reason, caught.message)
  return caught
}

describe('mailer over a real SMTP server', () => {
  const servers: { close(): Promise<void> }[] = []
  after(() => Promise.all(servers.map((s) => s.close())))

  test('a mail arrives with its From, To, Subject and body, sent with the credentials of the URL', async () => {
    const smtp = await startSmtp()
    servers.push(smtp)
    const { logger, lines } = capturedLogger()
    const url = `smtp://${encodeURIComponent(USER)}:${encodeURIComponent(PASS)}@127.0.0.1:${smtp.port}`
    const mailer = createMailer({ url, from: FROM, logger })
    assert.equal(mailer.enabled, true)

    await mailer.send({ to: 'bob@example.org', subject: 'Hello Bob', text: 'First line.\nSecond line.\n' })
    assert.equal(smtp.received.length, 1)
    const [mail] = smtp.received as [Received]
    assert.equal(mail.user, USER, 'AUTH used the user and password of the URL')
    assert.equal(mail.from, 'links@example.com')
    assert.deepEqual(mail.to, ['bob@example.org'])
    const { headers, body } = parse(mail.raw)
    assert.equal(headers.get('from'), FROM)
    assert.equal(headers.get('to'), 'bob@example.org')
    assert.equal(headers.get('subject'), 'Hello Bob')
    assert.equal(body.replace(/\r\n/g, '\n'), 'First line.\nSecond line.\n')
    assert.ok(lines.some((line) => line.includes('"msg":"mail sent"')))
    assert.ok(!lines.join('').includes(PASS))
  })

  test('text and HTML go as two alternatives; a subject line break cannot add a header', async () => {
    const smtp = await startSmtp({ authOptional: true })
    servers.push(smtp)
    const mailer = createMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: FROM, logger: pino({ level: 'silent' }) })
    const text = 'Alice invited you to join the workspace "Acme" on Linkline as an admin.\n'
    const html = `<p>Alice invited you to join the workspace <strong>Acme &amp; Co</strong>. ${'A long line, encoded for transport. '.repeat(5)}</p>`
    await mailer.send({ to: 'carol@example.org', subject: 'Invitation', text, html })
    await mailer.send({ to: 'carol@example.org', subject: 'Hi\r\nBcc: eve@example.net', text: 'x' })

    const [invitation, injected] = smtp.received as [Received, Received]
    const { headers, body } = parse(invitation.raw)
    assert.match(headers.get('content-type') ?? '', /^multipart\/alternative/)
    const decoded = decodeQuotedPrintable(body)
    assert.ok(decoded.includes(text.replace(/\n/g, '\r\n')), decoded)
    assert.ok(decoded.includes(html), decoded)

    assert.deepEqual(injected.to, ['carol@example.org'])
    const injectedHeaders = parse(injected.raw).headers
    assert.equal(injectedHeaders.has('bcc'), false)
    assert.equal(injectedHeaders.get('subject'), 'Hi Bcc: eve@example.net')
  })

  test('a recipient that is not one plain address is refused before any connection', async () => {
    const smtp = await startSmtp({ authOptional: true })
    servers.push(smtp)
    const mailer = createMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: FROM, logger: pino({ level: 'silent' }) })
    await expectFailure(mailer, 'bob@example.org, eve@example.net', 'invalid_address')
    await expectFailure(mailer, 'Bob <bob@example.org>', 'invalid_address')
    assert.equal(smtp.received.length, 0)
  })

  test('a refusal (550) is a MailError "rejected" with its code, logged without the credentials', async () => {
    const smtp = await startSmtp({
      onRcptTo: (address, _session, callback) =>
        callback(address.address.startsWith('nobody@') ? Object.assign(new Error('5.1.1 no such mailbox'), { responseCode: 550 }) : null),
    })
    servers.push(smtp)
    const { logger, lines } = capturedLogger()
    const mailer = createMailer({ url: `smtp://${encodeURIComponent(USER)}:${encodeURIComponent(PASS)}@127.0.0.1:${smtp.port}`, from: FROM, logger })

    const error = await expectFailure(mailer, 'nobody@example.org', 'rejected')
    assert.equal(error.responseCode, 550)
    assert.match(error.message, /refused the mail .*no such mailbox/)
    assert.match(error.message, new RegExp(`smtp://${encodeURIComponent(USER)}:\\*\\*\\*@127\\.0\\.0\\.1:${smtp.port}`))
    assert.equal(smtp.received.length, 0)
    const warning = lines.map((line) => JSON.parse(line) as { level: number; msg: string; mail: Record<string, unknown> }).find((l) => l.level === 40)
    assert.ok(warning, 'the failure is logged')
    assert.equal(warning.mail.reason, 'rejected')
    assert.equal(warning.mail.responseCode, 550)
    assertNoSecret([...lines, error.message, error.stack ?? '', JSON.stringify(error)])
  })

  test('refused credentials are a MailError "auth"; a server echoing them does not get them into the log', async () => {
    const smtp = await startSmtp({
      // A careless server that repeats what it was given, in clear and as sent (base64).
      onAuth: (auth, _session, callback) =>
        callback(new Error(`no login for ${auth.username}/${auth.password} ${Buffer.from(`\0${auth.username}\0${auth.password}`).toString('base64')}`)),
    })
    servers.push(smtp)
    const { logger, lines } = capturedLogger()
    const mailer = createMailer({ url: `smtp://${encodeURIComponent(USER)}:${encodeURIComponent(PASS)}@127.0.0.1:${smtp.port}`, from: FROM, logger })

    const error = await expectFailure(mailer, 'bob@example.org', 'auth')
    assert.equal(error.responseCode, 535)
    assert.match(error.message, /no login for linkline@example\.com\/\*\*\*/, 'the reply is kept, the password masked')
    assert.ok(lines.length > 0)
    assertNoSecret([...lines, error.message, error.stack ?? '', JSON.stringify(error)])
  })

  test('a server that accepts the connection and never answers fails within the timeout, and is hung up on', { timeout: 10_000 }, async () => {
    const silent = await startRawServer()
    servers.push(silent)
    const { logger, lines } = capturedLogger()
    const mailer = createMailer({ url: `smtp://${USER}:${encodeURIComponent(PASS)}@127.0.0.1:${silent.port}`, from: FROM, logger, timeoutMs: 300 })

    const started = performance.now()
    await expectFailure(mailer, 'bob@example.org', 'timeout')
    const elapsed = performance.now() - started
    assert.ok(elapsed >= 250 && elapsed < 2000, `failed after ${Math.round(elapsed)} ms`)
    await silent.allClosed()
    assertNoSecret(lines)
  })

  test('a server that answers a line at a time, never finishing, is cut off by the send deadline', { timeout: 10_000 }, async () => {
    // Each reply line comes before the socket timeout, so only the deadline of the whole send ends it.
    const trickle = await startRawServer((socket) => {
      socket.write('220 mail.example.com ESMTP\r\n')
      socket.once('data', () => {
        const timer = setInterval(() => socket.write('250-still thinking\r\n'), 100)
        socket.once('close', () => clearInterval(timer))
      })
    })
    servers.push(trickle)
    const mailer = createMailer({ url: `smtp://127.0.0.1:${trickle.port}`, from: FROM, logger: pino({ level: 'silent' }), timeoutMs: 300, sendTimeoutMs: 900 })

    const started = performance.now()
    await expectFailure(mailer, 'bob@example.org', 'timeout')
    const elapsed = performance.now() - started
    assert.ok(elapsed >= 850 && elapsed < 2500, `failed after ${Math.round(elapsed)} ms`)
    await trickle.allClosed()
  })

  test('no server at all is "unreachable"', async () => {
    const gone = await startRawServer()
    await gone.close()
    const mailer = createMailer({ url: `smtp://127.0.0.1:${gone.port}`, from: FROM, logger: pino({ level: 'silent' }), timeoutMs: 300 })
    await expectFailure(mailer, 'bob@example.org', 'unreachable')
  })
})

describe('mailer without LINKLINE_SMTP_URL', () => {
  test('is disabled, and send resolves without sending or logging', async () => {
    const { logger, lines } = capturedLogger()
    const mailer = createMailer({ url: undefined, from: 'Linkline <linkline@localhost>', logger })
    assert.equal(mailer.enabled, false)
    await mailer.send({ to: 'bob@example.org', subject: 'Hello', text: 'Hello' })
    assert.deepEqual(lines, [])
  })

  test('a From that is not one mailbox is refused at construction', () => {
    assert.throws(() => createMailer({ url: undefined, from: 'a@example.com, b@example.com', logger: pino({ level: 'silent' }) }), TypeError)
  })
})

for (const backend of backends) {
  test(`the container's mailer follows LINKLINE_SMTP_URL and LINKLINE_SMTP_FROM (${backend})`, async () => {
    const smtp = await startSmtp()
    const database = await createTestDatabase(backend)
    const url = `smtp://${encodeURIComponent(USER)}:${encodeURIComponent(PASS)}@127.0.0.1:${smtp.port}`
    const withMail = createContainer(loadConfig({ ...database.env, LOG_LEVEL: 'silent', LINKLINE_SMTP_URL: url, LINKLINE_SMTP_FROM: FROM }))
    const withoutMail = createContainer(loadConfig({ ...database.env, LOG_LEVEL: 'silent' }))
    try {
      assert.equal(withMail.mailer.enabled, true)
      await withMail.mailer.send({ to: 'bob@example.org', subject: 'From the container', text: 'Hello' })
      assert.deepEqual(
        smtp.received.map((mail) => [mail.user, parse(mail.raw).headers.get('from'), parse(mail.raw).headers.get('subject')]),
        [[USER, FROM, 'From the container']],
      )
      assert.equal(withoutMail.mailer.enabled, false)
    } finally {
      await withMail.close()
      await withoutMail.close()
      await database.drop()
      await smtp.close()
    }
  })
}

/** Neither the password nor any encoding of it an SMTP exchange uses. */
function assertNoSecret(texts: readonly string[]): void {
  const all = texts.join('\n')
  const forms = [PASS, encodeURIComponent(PASS), Buffer.from(PASS).toString('base64'), Buffer.from(`\0${USER}\0${PASS}`).toString('base64')]
  for (const form of forms) assert.ok(!all.includes(form), `found ${form} in:\n${all}`)
}
