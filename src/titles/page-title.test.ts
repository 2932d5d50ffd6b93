import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isHtml, PAGE_TITLE_MAX, pageTitle } from './page-title.js'

const html = (text: string) => Buffer.from(text, 'utf8')
const HTML = 'text/html; charset=utf-8'

test('og:title first, then twitter:title, then <title>, each cleaned', () => {
  assert.equal(pageTitle(html('<head><title>Plain | Site</title><meta property="og:title" content="  Shared\n title "></head>'), HTML), 'Shared title')
  assert.equal(pageTitle(html('<head><title>Plain</title><meta name="twitter:title" content="Card"></head>'), HTML), 'Card')
  assert.equal(pageTitle(html('<html><head><title>\n  Only   the\ttitle  </title></head><body></body></html>'), HTML), 'Only the title')
  // An empty og:title does not hide the <title>.
  assert.equal(pageTitle(html('<head><meta property="og:title" content="  "><title>Fallback</title></head>'), HTML), 'Fallback')
  assert.equal(pageTitle(html('<head><title>   </title></head>'), HTML), undefined)
  assert.equal(pageTitle(html('no markup at all'), HTML), undefined)
})

test('entities decoded, in text and in attributes', () => {
  assert.equal(pageTitle(html('<title>Fish &amp; Chips &mdash; &#8220;caf&eacute;&#x201D; &lt;b&gt;</title>'), HTML), 'Fish & Chips — “café” <b>')
  assert.equal(pageTitle(html('<meta property="og:title" content="A &quot;quoted&quot; &amp; more">'), HTML), 'A "quoted" & more')
})

test('only the head is read: a title in the body, or after the body has started, does not count', () => {
  assert.equal(pageTitle(html('<head></head><body><meta property="og:title" content="Late"><title>Late</title></body>'), HTML), undefined)
  assert.equal(pageTitle(html('<title>Early</title><p>text<meta property="og:title" content="Late">'), HTML), 'Early')
  assert.equal(pageTitle(html('<svg><title>Icon</title></svg>'), HTML), undefined)
})

test(`cut to ${PAGE_TITLE_MAX} characters, never inside a character`, () => {
  assert.equal(pageTitle(html(`<title>${'x'.repeat(10_000)}</title>`), HTML)?.length, PAGE_TITLE_MAX)
  const emoji = pageTitle(html(`<title>${'😀'.repeat(300)}</title>`), HTML) ?? ''
  assert.equal([...emoji].length, PAGE_TITLE_MAX)
  assert.ok(!/[\uD800-\uDBFF]$/.test(emoji))
})

test('the charset: Content-Type, else <meta charset> or http-equiv, else UTF-8; unknown labels read as UTF-8', () => {
  const latin1 = Buffer.concat([Buffer.from('<title>Caf'), Buffer.from([0xe9]), Buffer.from(' cr'), Buffer.from([0xe8]), Buffer.from('me</title>')])
  assert.equal(pageTitle(latin1, 'text/html; charset=ISO-8859-1'), 'Café crème')
  assert.equal(pageTitle(Buffer.concat([Buffer.from('<meta charset="iso-8859-1">'), latin1]), 'text/html'), 'Café crème')
  const cyrillic = Buffer.concat([
    Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=windows-1251"><title>'),
    Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]),
    Buffer.from('</title>'),
  ])
  assert.equal(pageTitle(cyrillic, 'text/html'), 'Привет')
  // Shift_JIS for 日本: 0x93fa 0x967b.
  const japanese = Buffer.concat([Buffer.from('<meta charset=shift_jis><title>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b]), Buffer.from('</title>')])
  assert.equal(pageTitle(japanese, 'text/html'), '日本')
  // The header wins over the page.
  assert.equal(pageTitle(Buffer.concat([Buffer.from('<meta charset="windows-1251">'), latin1]), 'text/html; charset=latin1'), 'Café crème')
  assert.equal(pageTitle(html('<title>Ünïcode</title>'), 'text/html; charset=no-such-charset'), 'Ünïcode')
  assert.equal(pageTitle(html('<title>Ünïcode</title>'), 'text/html'), 'Ünïcode')
  // A byte order mark wins over everything.
  assert.equal(pageTitle(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), html('<title>Ünïcode</title>')]), 'text/html; charset=latin1'), 'Ünïcode')
})

test('broken markup still gives what a browser would read', () => {
  assert.equal(pageTitle(html('<<<title>Broken <b>bold</b> &bogus; title'), HTML), 'Broken <b>bold</b> &bogus; title')
  assert.equal(pageTitle(html('<meta property=og:title content=Unquoted><title>x'), HTML), 'Unquoted')
  assert.equal(pageTitle(Buffer.from([0xff, 0xfe, 0x00, 0xd8]), HTML), undefined)
})

test('only text/html is a page', () => {
  assert.ok(isHtml('text/html'))
  assert.ok(isHtml('Text/HTML; charset=utf-8'))
  for (const other of [undefined, '', 'application/json', 'text/plain', 'application/xhtml+xml', 'text/htmlx']) assert.ok(!isHtml(other), String(other))
})
