import type { MailMessage } from './mailer.js'

/**
 * The mails Linkline sends, in plain text with a simple HTML twin. Every value that comes from a
 * person (a workspace name, a name) is made one line of text: in the subject it cannot start a
 * header, in the body it cannot pose as a line of ours; in HTML it is escaped.
 */

export interface InvitationMail {
  to: string
  workspaceName: string
  role: string
  /** Who invited: a name, an email or a token's label; omitted (or blank), the mail names no one. */
  invitedBy?: string
  /** The one-time link to /app/invite/<secret>. */
  url: string
  /** Epoch milliseconds. */
  expiresAt: number
}

export interface PasswordResetMail {
  to: string
  /** The one-time link to set a new password. */
  url: string
  /** Epoch milliseconds. */
  expiresAt: number
}

export function invitationMessage(mail: InvitationMail): MailMessage {
  const workspace = oneLine(mail.workspaceName, 100)
  const role = oneLine(mail.role, 40)
  const who = oneLine(mail.invitedBy ?? '', 100)
  const url = checkedUrl(mail.url)
  const expires = formatExpiry(mail.expiresAt)
  const invited = `${who === '' ? 'You are invited' : `${who} invited you`} to join the workspace`
  const as = `on Linkline as ${article(role)} ${role}.`
  return {
    to: mail.to,
    subject: `Invitation to join ${workspace} on Linkline`,
    text: [
      `${invited} "${workspace}" ${as}`,
      '',
      'Accept the invitation:',
      url,
      '',
      `The link works once and expires on ${expires}.`,
      'If you did not expect this invitation, ignore this mail.',
      '',
    ].join('\n'),
    html: html([
      `${escapeHtml(invited)} <strong>${escapeHtml(workspace)}</strong> ${escapeHtml(as)}`,
      `<a href="${escapeHtml(url)}">Accept the invitation</a>`,
      `Or open this link: ${escapeHtml(url)}`,
      `The link works once and expires on ${escapeHtml(expires)}. If you did not expect this invitation, ignore this mail.`,
    ]),
  }
}

export function passwordResetMessage(mail: PasswordResetMail): MailMessage {
  const url = checkedUrl(mail.url)
  const expires = formatExpiry(mail.expiresAt)
  const asked = `A new password was asked for the Linkline account ${oneLine(mail.to, 254)}.`
  const ignore = 'If you did not ask for it, ignore this mail: your password stays as it is.'
  return {
    to: mail.to,
    subject: 'Set a new Linkline password',
    text: [asked, '', 'Set a new password:', url, '', `The link works once and expires on ${expires}.`, ignore, ''].join('\n'),
    html: html([
      escapeHtml(asked),
      `<a href="${escapeHtml(url)}">Set a new password</a>`,
      `Or open this link: ${escapeHtml(url)}`,
      `The link works once and expires on ${escapeHtml(expires)}. ${escapeHtml(ignore)}`,
    ]),
  }
}

/** Text for one line: control characters (CR, LF, tabs…) and runs of spaces become one space, and it is cut to `max`. */
export function oneLine(value: string, max: number): string {
  const line = value
    .replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, ' ')
    .trim()
    .slice(0, max)
  return line.trimEnd()
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string)
}

const html = (paragraphs: readonly string[]): string =>
  `<!doctype html>\n<html><body style="font-family: sans-serif; line-height: 1.5">\n${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}\n</body></html>\n`

const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a')

// A link in a mail is followed by a person: only http(s), and never a URL that a newline could split.
function checkedUrl(url: string): string {
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new TypeError('a mail link must be an absolute http(s) URL without spaces')
  return url
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

/** `27 November 2026, 10:30 UTC`: the same for every reader, whatever the server's zone or ICU version. */
function formatExpiry(epochMs: number): string {
  const at = new Date(epochMs)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}, ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())} UTC`
}
