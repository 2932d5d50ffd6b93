import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { cli } from '../../test/process.js'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'

/** Links with every setting, and text that a spreadsheet would run. */
const LINKS = [
  {
    destination: 'https://shop.example/summer',
    path: '/rt-full',
    title: '=HYPERLINK("https://evil.example","Click")',
    tags: ['+cmd', "'=x", 'a|b', 'a,b', ' padded '],
    redirectType: 301,
    expiresAt: '2099-01-01T00:00:00.000Z',
    maxClicks: 5,
    expiredUrl: 'https://shop.example/over',
    rules: [{ when: { country: ['DE'], device: ['ios'] }, destination: 'https://shop.example/de' }],
    password: 'open sesame',
    publicStats: true,
    preview: { title: 'Summer "sale", today', description: '=1+1, <b>50 %</b>\noff', image: 'https://shop.example/card.png' },
  },
  { destination: 'https://shop.example/plain', path: '/rt-plain', title: '@SUM(1)', redirectType: 308, preview: { description: 'only a text' } },
  { destination: 'https://shop.example/tab', path: '/rt-tab', title: '\tleading tab', tags: ['-1'] },
]

type Exported = Record<string, unknown> & { path: string }
const ndjson = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Exported)
/** What must survive a move: all but the id, the times and the owner. */
const settings = ({ id: _id, createdAt: _c, updatedAt: _u, ownerId: _o, ...rest }: Exported) => rest

for (const backend of backends)
  describe(`export, then import into another owner and database (SQLite to ${backend})`, () => {
    let source: TestServer
    const targets: Record<string, TestServer> = {}
    let dir: string
    before(async () => {
      source = await startTestServer({ backend: 'sqlite' })
      // The same short domain as the source, as a move to another database keeps it.
      for (const format of ['csv', 'ndjson']) targets[format] = await startTestServer({ backend, env: { LINKLINE_DOMAINS: source.host } })
      dir = mkdtempSync(join(tmpdir(), 'linkline-roundtrip-'))
      for (const link of LINKS) assert.equal((await source.request('POST', '/v1/links', { json: link })).status, 201)
    })
    after(async () => {
      await source.close()
      for (const target of Object.values(targets)) await target.close()
      rmSync(dir, { recursive: true, force: true })
    })

    for (const format of ['csv', 'ndjson'])
      test(`${format}: every setting, the password and the typed text come back as they were`, async () => {
        const target = targets[format] as TestServer
        const exported = await cli(['links', 'export', '--owner', 'alice', '--format', format], source.env)
        assert.equal(exported.status, 0, exported.stderr)
        const file = join(dir, `links.${format}`)
        writeFileSync(file, exported.stdout)
        // No --format: the import tells Linkline's own export from its header.
        const imported = await cli(['links', 'import', file, '--owner', 'dave'], target.env)
        assert.equal(imported.stdout, `created ${LINKS.length}, skipped 0 (already present), failed 0\n`, imported.stderr)
        assert.equal(imported.status, 0)

        const before = ndjson((await source.request('GET', '/v1/links/export?format=ndjson')).text)
        const dave = await target.createToken('dave')
        const after = ndjson((await target.request('GET', '/v1/links/export?format=ndjson', { token: dave })).text)
        assert.deepEqual(after.map(settings).sort(byPath), before.map(settings).sort(byPath))
        assert.equal(after.find((l) => l.path === '/rt-full')?.title, LINKS[0]?.title)

        // The protected link is still protected, by the same password.
        const visit = (method: string, form?: Record<string, string>) =>
          target.request(method, '/rt-full', { token: null, headers: { host: source.host, 'user-agent': CHROME }, ...(form && { form }) })
        assert.equal((await visit('GET')).status, 200, 'the password form, not the destination')
        assert.equal((await visit('POST', { password: 'wrong one' })).status, 401)
        const right = await visit('POST', { password: 'open sesame' })
        assert.deepEqual([right.status, right.headers.location], [303, 'https://shop.example/summer'])

        const again = await cli(['links', 'import', file, '--owner', 'dave'], target.env)
        assert.equal(again.stdout, `created 0, skipped ${LINKS.length} (already present), failed 0\n`, again.stderr)
      })
  })

const byPath = (a: { path: unknown }, b: { path: unknown }) => String(a.path).localeCompare(String(b.path))
