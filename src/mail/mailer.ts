import type { FastifyBaseLogger } from 'fastify'
import { createTransport } from 'nodemailer'
import { isMailbox, isPlainAddress, parseSmtpUrl, redactSmtpUrl } from './addresses.js'

/** One mail: `to` is one plain address; `text` is the body every client can show, `html` an optional richer one. */
export interface MailMessage {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html?: string
}

/**
 * Why a mail was not sent, for the caller to decide on (an invitation stays valid: its link is in the
 * API response anyway):
 * - `invalid_address`: `to` is not one plain address; nothing was sent;
 * - `rejected`: the server refused the sender, the recipient or the message (`responseCode` 4xx/5xx);
 * - `auth`: the server refused the credentials of LINKLINE_SMTP_URL;
 * - `timeout`: the server did not answer in time;
 * - `unreachable`: no connection (refused, DNS, TLS) or it was closed.
 */
export type MailFailure = 'invalid_address' | 'rejected' | 'auth' | 'timeout' | 'unreachable'

/** A mail that was not sent. Its message names the server without its password, and never carries the credentials. */
export class MailError extends Error {
  override readonly name = 'MailError'
  constructor(
    readonly reason: MailFailure,
    message: string,
    /** The SMTP reply code, when the server gave one (550, 535…). */
    readonly responseCode?: number,
  ) {
    super(message)
  }
}

export interface Mailer {
  /** False without LINKLINE_SMTP_URL: `send` then sends nothing, and callers show their links instead. */
  readonly enabled: boolean
  /** Sends one mail; rejects with a MailError (already logged) when it was not accepted by the SMTP server. */
  send(message: MailMessage): Promise<void>
}

export interface MailerOptions {
  /** LINKLINE_SMTP_URL; undefined: no mail is sent. */
  url: string | undefined
  /** LINKLINE_SMTP_FROM: `address` or `Name <address>`. */
  from: string
  logger: Pick<FastifyBaseLogger, 'info' | 'warn'>
  /** Longest wait for the connection, the greeting and each reply (default 10 s; tests shorten it). */
  timeoutMs?: number
  /** Longest a whole send may take, however the server trickles its replies (default 30 s). */
  sendTimeoutMs?: number
}

const TIMEOUT_MS = 10_000
const SEND_TIMEOUT_MS = 30_000

/** Mail through the SMTP server of LINKLINE_SMTP_URL, or nowhere when it is unset. */
export function createMailer(options: MailerOptions): Mailer {
  const { url, from, logger } = options
  if (!isMailbox(from)) throw new TypeError(`not a mailbox for From: "${from}"`)
  if (url === undefined) return { enabled: false, send: async () => {} }
  const server = parseSmtpUrl(url)
  if ('problem' in server) throw new TypeError(`LINKLINE_SMTP_URL ${server.problem}`)
  const shown = redactSmtpUrl(url)
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS
  const sendTimeoutMs = options.sendTimeoutMs ?? SEND_TIMEOUT_MS

  // Options set here rather than read from the URL (which takes no query), so nothing can lift the
  // time bounds. One connection per mail: mail is rare (invitations, resets), and nothing stays open.
  const transport = createTransport({
    host: server.host,
    port: server.port,
    secure: server.secure,
    auth: server.auth && { user: server.auth.user, pass: server.auth.pass },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    // Bodies are our strings: never a file path or URL for nodemailer to read.
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  })
  // Anything a server or nodemailer says could echo what was sent; the password never leaves here.
  const secrets = server.auth ? secretForms(server.auth.user, server.auth.pass) : []
  const scrub = (text: string) => secrets.reduce((out, secret) => out.replaceAll(secret, '***'), text)

  return {
    enabled: true,
    async send(message) {
      // Header values are ours, but one line each whatever a caller passes: no header can be added.
      const subject = message.subject.replace(/[\r\n]+/g, ' ')
      const failed = (error: MailError): never => {
        logger.warn({ mail: { to: message.to, subject, server: shown, reason: error.reason, responseCode: error.responseCode } }, error.message)
        throw error
      }
      if (!isPlainAddress(message.to)) failed(new MailError('invalid_address', 'mail not sent: the recipient is not one plain address'))
      try {
        await transport.sendMail({
          from,
          to: message.to,
          subject,
          text: message.text,
          ...(message.html === undefined ? {} : { html: message.html }),
          signal: AbortSignal.timeout(sendTimeoutMs),
        })
      } catch (error) {
        failed(toMailError(error, shown, scrub))
      }
      logger.info({ mail: { to: message.to, subject } }, 'mail sent')
    },
  }
}

/** The password as it could appear in a transcript: plain, percent-encoded, inside AUTH PLAIN / LOGIN base64. */
function secretForms(user: string, pass: string): string[] {
  if (pass === '') return []
  const base64 = (text: string) => Buffer.from(text).toString('base64')
  return [pass, encodeURIComponent(pass), base64(pass), base64(`\0${user}\0${pass}`), base64(`${user}\0${user}\0${pass}`)].filter((form) => form.length >= 4)
}

interface NodemailerFailure {
  code?: string
  responseCode?: number
  response?: string
  message?: string
}

function toMailError(error: unknown, server: string, scrub: (text: string) => string): MailError {
  const { code, responseCode, response, message } = (error ?? {}) as NodemailerFailure
  const reply = scrub(response ?? message ?? String(error)).slice(0, 300)
  const reason: MailFailure =
    code === 'EAUTH' || code === 'ENOAUTH'
      ? 'auth'
      : code === 'ETIMEDOUT' || code === 'EABORT'
        ? 'timeout'
        : responseCode !== undefined && responseCode >= 400
          ? 'rejected'
          : 'unreachable'
  const what = {
    auth: 'the SMTP server refused the credentials',
    timeout: 'the SMTP server did not answer in time',
    rejected: 'the SMTP server refused the mail',
    unreachable: 'the SMTP server could not be reached',
    invalid_address: 'the recipient is not one plain address',
  }[reason]
  return new MailError(reason, `mail not sent: ${what} (${server}): ${reply}`, responseCode)
}
