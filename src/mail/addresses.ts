/**
 * What LINKLINE_SMTP_URL and LINKLINE_SMTP_FROM may be, checked once by loadConfig and read again by
 * the mailer, and the one way an SMTP URL is shown in logs and errors (its password masked).
 */

/** The SMTP server to send through, as LINKLINE_SMTP_URL says it. */
export interface SmtpServer {
  readonly host: string
  readonly port: number
  /** TLS from the first byte (smtps://, usually port 465); otherwise STARTTLS when the server offers it. */
  readonly secure: boolean
  readonly auth: { readonly user: string; readonly pass: string } | undefined
}

// One address, no display name, no list: what a recipient and the address inside From must be.
// Deliberately narrower than RFC 5322 (no quoted local parts, no comments): nothing here can smuggle
// a second recipient or a header.
const ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/

/** `alice@example.com`: one plain address. */
export const isPlainAddress = (value: string): boolean => value.length <= 254 && ADDRESS.test(value)

/** `linkline@example.com` or `Linkline <linkline@example.com>`: a From header of one mailbox. */
export function isMailbox(value: string): boolean {
  const named = /^([^<>"\\\p{Cc}]*)<([^<>]*)>$/u.exec(value.trim())
  return named === null ? isPlainAddress(value.trim()) : isPlainAddress(named[2] as string)
}

/** The server an `smtp://` or `smtps://` URL names, or why it names none (the message never repeats the password). */
export function parseSmtpUrl(raw: string): SmtpServer | { problem: string } {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { problem: 'is not a URL' }
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return { problem: 'must start with smtp:// or smtps://' }
  if (url.hostname === '') return { problem: 'must name a host' }
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') {
    return { problem: 'takes no path or query: smtp://user:password@host:port' }
  }
  if (url.username === '' && url.password !== '') return { problem: 'has a password but no user' }
  let auth: SmtpServer['auth']
  try {
    auth = url.username === '' ? undefined : { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
  } catch {
    return { problem: 'has a malformed percent-encoding in its user or password' }
  }
  const secure = url.protocol === 'smtps:'
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    auth,
  }
}

/**
 * LINKLINE_SMTP_URL as logs and errors may show it: `smtp://user:***@host:587`. Only the scheme, user,
 * host and port are shown, rebuilt from the parts, so that a password in any other place (a malformed
 * URL, a query) is not shown either.
 */
export function redactSmtpUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return '(not a URL)'
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.host === '') return '(not an smtp:// or smtps:// URL)'
  const user = url.username === '' ? '' : `${url.username}${url.password === '' ? '' : ':***'}@`
  return `${url.protocol}//${user}${url.host}`
}
