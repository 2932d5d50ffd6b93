import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { linkRequests } from '../../test/link-requests.js'
import { isPreviewCrawler } from './link-previews.js'
import { LIMITS } from './links.schemas.js'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'

/** Link-preview crawlers as they announce themselves (several also in classify.test.ts's fixture). */
const CRAWLERS = {
  slack: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  facebook: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  x: 'Twitterbot/1.0',
  linkedin: 'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
  discord: 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
  whatsapp: 'WhatsApp/2.23.20.0',
  imessage:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
  telegram: 'TelegramBot (like TwitterBot)',
  skype: 'Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com',
  outlook: 'Mozilla/5.0 (compatible; MicrosoftPreview/2.0; +https://aka.ms/MicrosoftPreview)',
  office: 'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17029; Pro)',
  yahoo: 'Mozilla/5.0 (compatible; Yahoo Link Preview; https://help.yahoo.com/kb/mail/yahoo-link-preview-SLN23615.html)',
  iframely: 'Iframely/1.3.1 (+https://iframely.com/docs/about)',
}
/** Bots that are no link-preview crawlers, and people: the redirect, as before. */
const NOT_CRAWLERS = ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'curl/8.5.0', 'Barracuda Sentinel (EE)', CHROME, SAFARI, '']

describe('link-preview crawlers (no HTTP)', () => {
  test('the chat, social and mail services are crawlers; search engines, curl, scanners and browsers are not', () => {
    for (const [name, ua] of Object.entries(CRAWLERS)) assert.equal(isPreviewCrawler(ua), true, name)
    for (const ua of NOT_CRAWLERS) assert.equal(isPreviewCrawler(ua), false, ua)
    assert.equal(isPreviewCrawler(undefined), false)
  })
})

for (const backend of backends) {
  describe(`social previews (${backend})`, () => {
    let s: TestServer
    before(async () => {
      s = await startTestServer({ backend })
    })
    after(() => s.close())

    const { create, update, refused } = linkRequests(() => s)
    const visit = (path: string, userAgent: string | undefined, method = 'GET') =>
      s.request(method, path, { token: null, headers: userAgent === undefined ? {} : { 'user-agent': userAgent } })
    /** The content of each meta tag, by property or name, unescaped. */
    const metaOf = (html: string) =>
      Object.fromEntries(
        [...html.matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)">/g)].map((m) => [
          m[1],
          (m[2] as string).replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))),
        ]),
      )
    const assertPreviewPage = (r: { status: number; headers: Record<string, unknown>; text: string }) => {
      assert.equal(r.status, 200, r.text)
      assert.equal(r.headers.location, undefined)
      assert.match(String(r.headers['content-type']), /^text\/html; charset=utf-8/)
      assert.equal(r.headers['cache-control'], 'private, no-store')
      assert.match(String(r.headers['content-security-policy']), /default-src 'none'/)
      assert.equal(r.headers['x-content-type-options'], 'nosniff')
      assert.equal(r.headers['referrer-policy'], 'no-referrer')
    }

    test('a crawler gets the card, a browser or a client without User-Agent the redirect, of the same link', async () => {
      const link = await create({
        destination: 'https://p.example/summer?ref=card',
        path: '/p-card',
        preview: { title: 'Summer sale', description: 'Half off, this week only', image: 'https://cdn.example/card.png' },
      })
      assert.deepEqual(link.preview, { title: 'Summer sale', description: 'Half off, this week only', image: 'https://cdn.example/card.png' })
      assert.deepEqual((await s.request('GET', `/v1/links/${link.id}`)).body.data.preview, link.preview)
      for (const [name, ua] of Object.entries(CRAWLERS)) {
        const r = await visit('/p-card', ua)
        assertPreviewPage(r)
        assert.doesNotMatch(r.text, /p\.example/, `${name}: never the destination`)
        assert.doesNotMatch(r.text, /<script/i)
        const meta = metaOf(r.text)
        assert.deepEqual(
          [meta['og:title'], meta['og:description'], meta['og:image'], meta['og:url'], meta['twitter:card'], meta['twitter:title'], meta['twitter:image']],
          [
            'Summer sale',
            'Half off, this week only',
            'https://cdn.example/card.png',
            link.shortUrl,
            'summary_large_image',
            'Summer sale',
            'https://cdn.example/card.png',
          ],
          name,
        )
        assert.match(r.text, /<title>Summer sale<\/title>/)
        assert.ok(r.text.includes(`<meta http-equiv="refresh" content="0; url=${link.shortUrl}">`), r.text)
      }
      for (const ua of [CHROME, SAFARI, undefined, 'curl/8.5.0', NOT_CRAWLERS[0]]) {
        const r = await visit('/p-card?x=1', ua)
        assert.deepEqual([r.status, r.headers.location], [302, 'https://p.example/summer?ref=card&x=1'], String(ua))
      }
      // HEAD from a crawler: the page's headers, no body.
      const head = await visit('/p-card', CRAWLERS.slack, 'HEAD')
      assertPreviewPage(head)
      assert.equal(head.text, '')
      assert.ok(Number(head.headers['content-length']) > 0)
    })

    test("a crawler's visit is recorded as a bot click", async () => {
      const link = await create({ destination: 'https://p.example/counted', preview: { title: 'Counted' } })
      const path = new URL(link.shortUrl).pathname
      assert.equal((await visit(path, CRAWLERS.facebook)).status, 200)
      assert.equal((await visit(path, CRAWLERS.whatsapp)).status, 200)
      assert.equal((await visit(path, CHROME)).status, 302)
      await s.container.clicks.flush()
      const stats = (await s.request('GET', `/v1/links/${link.id}/stats`)).body.data
      assert.deepEqual([stats.humanClicks, stats.botClicks], [1, 2])
    })

    test('every value is HTML-escaped; without an image the card is a summary; the title falls back to the link title', async () => {
      const hostile = '"><script>alert(1)</script><meta x="'
      const link = await create({
        destination: 'https://p.example/hostile',
        path: '/p-hostile',
        title: `Link ${hostile}`,
        preview: { description: `Text ${hostile} & 'quotes'`, image: 'https://cdn.example/a.png?x="><script>&y=<b>' },
      })
      const r = await visit('/p-hostile', CRAWLERS.discord)
      assertPreviewPage(r)
      assert.doesNotMatch(r.text, /<script|<meta x=|<b>/i)
      const meta = metaOf(r.text)
      assert.equal(meta['og:title'], `Link ${hostile}`, 'the link title, as the preview sets none')
      assert.equal(meta['og:description'], `Text ${hostile} & 'quotes'`)
      assert.equal(meta['og:image'], 'https://cdn.example/a.png?x=%22%3E%3Cscript%3E&y=%3Cb%3E', 'the image URL as stored: serialized')
      assert.equal(link.preview.image, meta['og:image'])

      const bare = await create({ destination: 'https://p.example/bare', path: '/p-bare', preview: { description: 'No title anywhere' } })
      const page = await visit('/p-bare', CRAWLERS.x)
      const tags = metaOf(page.text)
      assert.deepEqual([tags['twitter:card'], tags['og:title'], tags['og:image']], ['summary', bare.shortUrl, undefined])
    })

    test('bad previews: a 400 naming the field, on create, update and bulk create', async () => {
      const d = 'https://p.example/bad'
      await refused({ destination: d, preview: 'a card' }, 'preview')
      await refused({ destination: d, preview: [] }, 'preview')
      await refused({ destination: d, preview: { title: 'x'.repeat(LIMITS.previewTitle + 1) } }, 'preview[title]')
      await refused({ destination: d, preview: { title: 5 } }, 'preview[title]')
      await refused({ destination: d, preview: { description: 'x'.repeat(LIMITS.previewDescription + 1) } }, 'preview[description]')
      await refused({ destination: d, preview: { image: 'http://cdn.example/card.png' } }, 'preview[image]')
      await refused({ destination: d, preview: { image: 'javascript:alert(1)' } }, 'preview[image]')
      await refused({ destination: d, preview: { image: '/card.png' } }, 'preview[image]')
      await refused({ destination: d, preview: { image: 'https://cdn.example/a\nb.png' } }, 'preview[image]')
      await refused({ destination: d, preview: { image: `https://cdn.example/${'x'.repeat(LIMITS.previewImage)}` } }, 'preview[image]')
      await refused({ destination: d, preview: { video: 'https://cdn.example/v.mp4' } }, 'preview[video]')
      await refused({ destination: d, preview: { title: 'a\u0000b' } }, 'preview[title]')
      // At the limits: accepted.
      const edge = await create({
        destination: d,
        preview: { title: '😀'.repeat(LIMITS.previewTitle), description: 'x'.repeat(LIMITS.previewDescription), image: null },
      })
      assert.equal(edge.preview.image, null)
      await refused({ preview: { image: 'ftp://cdn.example/x' } }, 'preview[image]', 'PATCH', `/v1/links/${edge.id}`)
      const bulk = await s.request('POST', '/v1/links/bulk', {
        json: {
          links: [
            { destination: d, preview: { title: 'ok' } },
            { destination: d, preview: { image: 'http://x.example/i.png' } },
          ],
        },
      })
      assert.equal(bulk.status, 200, bulk.text)
      assert.equal(bulk.body.data[0].ok, true)
      assert.deepEqual(bulk.body.data[0].link.preview, { title: 'ok', description: null, image: null })
      assert.equal(bulk.body.data[1].error.param, 'links[1][preview][image]')
    })

    test('PATCH replaces the preview, null clears it; an empty preview is none; the cache follows at once', async () => {
      const plain = await create({ destination: 'https://p.example/later', path: '/p-later' })
      assert.equal(plain.preview, null)
      // A link without a preview: a crawler gets the redirect (cached from here on).
      assert.equal((await visit('/p-later', CRAWLERS.slack)).status, 302)
      const withPreview = await update(plain.id, { preview: { title: 'First' } })
      assert.deepEqual(withPreview.preview, { title: 'First', description: null, image: null })
      assert.equal(metaOf((await visit('/p-later', CRAWLERS.slack)).text)['og:title'], 'First')
      await update(plain.id, { preview: { description: 'Second' } })
      const replaced = metaOf((await visit('/p-later', CRAWLERS.slack)).text)
      assert.deepEqual([replaced['og:title'], replaced['og:description']], [plain.shortUrl, 'Second'], 'replaced, not merged')
      // A change of the link's title alone reaches the card too.
      await update(plain.id, { title: 'Renamed' })
      assert.equal(metaOf((await visit('/p-later', CRAWLERS.slack)).text)['og:title'], 'Renamed')
      const cleared = await update(plain.id, { preview: null })
      assert.equal(cleared.preview, null)
      assert.deepEqual(
        [(await visit('/p-later', CRAWLERS.slack)).status, (await visit('/p-later', CRAWLERS.slack)).headers.location],
        [302, 'https://p.example/later'],
      )
      // No field set (an empty text is null, as for every nullable field): no preview.
      for (const none of [{}, { title: null }, { title: '', description: '' }]) assert.equal((await update(plain.id, { preview: none })).preview, null)
      // Form bodies: bracket notation.
      const form = await s.request('POST', '/v1/links', { form: { destination: 'https://p.example/form', 'preview[title]': 'From a form' } })
      assert.equal(form.status, 201, form.text)
      assert.deepEqual(form.body.data.preview, { title: 'From a form', description: null, image: null })
    })

    test('protected, limited and expired links: a crawler gets the card while the link is live, never the destination', async () => {
      const preview = { title: 'Members only', image: 'https://cdn.example/m.png' }
      await create({ destination: 'https://p.example/secret', path: '/p-secret', password: 'open sesame', preview })
      const locked = await visit('/p-secret', CRAWLERS.linkedin)
      assertPreviewPage(locked)
      assert.equal(metaOf(locked.text)['og:title'], 'Members only')
      assert.doesNotMatch(locked.text, /p\.example|password/i)
      assert.match((await visit('/p-secret', CHROME)).text, /Password required/, 'a person gets the form')

      await create({ destination: 'https://p.example/once', path: '/p-once', maxClicks: 1, preview })
      assertPreviewPage(await visit('/p-once', CRAWLERS.telegram))
      assert.equal((await visit('/p-once', CHROME)).status, 302)
      // Spent: expired for crawlers too.
      assert.equal((await visit('/p-once', CRAWLERS.telegram)).status, 410)

      await create({ destination: 'https://p.example/past', path: '/p-past', expiresAt: '2001-01-01T00:00:00Z', preview })
      assert.equal((await visit('/p-past', CRAWLERS.facebook)).status, 410)
      await create({
        destination: 'https://p.example/past2',
        path: '/p-past2',
        expiresAt: '2001-01-01T00:00:00Z',
        expiredUrl: 'https://p.example/over',
        preview,
      })
      const over = await visit('/p-past2', CRAWLERS.facebook)
      assert.deepEqual([over.status, over.headers.location], [302, 'https://p.example/over'])
    })
  })
}
