import { PREVIEW_FETCHERS, userAgentFacts } from '../stats/classify.js'
import { validationError } from '../shared/errors.js'
import type { LinkPreview } from './links.schemas.js'

/**
 * Social previews (docs/api/links.md#social-previews): the card a link-preview crawler shows when
 * the short URL is shared. Such a crawler gets a small page of Open Graph and Twitter card tags
 * instead of the redirect; the page names the short URL only, never the destination.
 */

/**
 * The link-preview crawlers: chat, social and mail services fetching a shared URL to draw its card
 * (each in the fixture of link-previews.test.ts). A crawler must also be a bot to the statistics
 * (isbot, or classify.ts's PREVIEW_FETCHERS, which are listed here too), so that its visit is
 * recorded as a bot's. Other bots (search engines, curl, monitoring) get the redirect, as people do.
 */
const PREVIEW_CRAWLERS = new RegExp(
  [
    'facebookexternalhit', // Facebook, Messenger, Instagram; iMessage and LINE send it too
    '\\bFacebot\\b',
    'Twitterbot', // X
    'Slackbot', // Slackbot-LinkExpanding
    'Slack-ImgProxy',
    'LinkedInBot',
    'Discordbot',
    '\\bWhatsApp\\b', // Signal sends it too
    'TelegramBot',
    'SkypeUriPreview', // Skype, Teams
    'MicrosoftPreview', // Outlook, Teams
    'Yahoo Link Preview',
    'Pinterest(bot)?/',
    'redditbot',
    'vkShare',
    'Viber',
    'Snap URL Preview',
    'Mastodon/',
    'Bluesky Cardyb',
    'Iframely',
    'Embedly',
    PREVIEW_FETCHERS.source,
  ].join('|'),
  'i',
)

/** Whether the User-Agent is a link-preview crawler's; no User-Agent is not (docs/api/redirect.md#social-previews). */
export const isPreviewCrawler = (userAgent: string | undefined): boolean =>
  userAgent !== undefined && userAgent !== '' && userAgentFacts(userAgent).bot && PREVIEW_CRAWLERS.test(userAgent)

/** A link's preview as the redirect keeps it: the stored fields, and the page once rendered (per cached target). */
export interface Preview {
  readonly fields: LinkPreview
  /** The link's own title: the card's title when the preview sets none. */
  readonly linkTitle: string | null
  page: string | undefined
}

/** The stored preview (JSON text) as the redirect keeps it, or undefined when the link has none. */
export const compilePreview = (stored: string | null, linkTitle: string | null): Preview | undefined =>
  stored === null ? undefined : { fields: JSON.parse(stored) as LinkPreview, linkTitle, page: undefined }

// eslint-disable-next-line no-control-regex -- the control characters are what this looks for
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/

/**
 * The preview sent, as stored: the image an absolute https URL in its WHATWG serialization, text
 * without NUL (an import skips the HTTP layer's check). A preview without any field set is none.
 */
export function normalizePreview(input: Partial<LinkPreview> | null): string | null {
  if (input === null) return null
  const fields: LinkPreview = { title: input.title ?? null, description: input.description ?? null, image: input.image ?? null }
  for (const key of ['title', 'description'] as const) {
    if (fields[key]?.includes('\u0000')) throw validationError(`preview[${key}]`, `preview[${key}] must not contain the NUL character (U+0000)`)
  }
  if (fields.image !== null) fields.image = normalizeImage(fields.image)
  if (fields.title === null && fields.description === null && fields.image === null) return null
  return JSON.stringify(fields)
}

function normalizeImage(image: string): string {
  const refuse = () => validationError('preview[image]', 'preview[image] must be an absolute https URL with a host, without control characters')
  if (CONTROL_CHARACTER.test(image) || !URL.canParse(image)) throw refuse()
  const url = new URL(image)
  if (url.protocol !== 'https:' || url.hostname === '') throw refuse()
  return url.href
}
