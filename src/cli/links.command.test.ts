import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { backends } from '../../test/backends.js'
import { startTestServer, type TestServer } from '../../test/build-test-app.js'
import { cli, ROOT } from '../../test/process.js'

const FIXTURES = `${ROOT}test/fixtures/import/`

type Link = { path: string; domain: string; destination: string; title: string | null }

for (const backend of backends)
  describe(`linkline links import and export (${backend})`, () => {
    let s: TestServer
    let dir: string
    before(async () => {
      s = await startTestServer({ backend })
      dir = mkdtempSync(join(tmpdir(), 'linkline-import-'))
    })
    after(async () => {
      await s.close()
      rmSync(dir, { recursive: true, force: true })
    })

    /** The CLI against the test server's own database and domains. */
    const linkline = (...args: string[]) => cli(args, s.env)
    const file = (name: string, lines: string[]) => {
      const path = join(dir, name)
      writeFileSync(path, `${lines.join('\n')}\n`)
      return path
    }
    const links = async (token = s.token): Promise<Link[]> =>
      (await s.request('GET', '/v1/links/export?format=ndjson', { token })).text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Link)
    const at = async (path: string, token = s.token) => (await links(token)).find((l) => l.path === path)

    test("each service's sample file imports, mapped to Linkline's fields", async () => {
      const cases: [string, string, Record<string, [string, string | null]>][] = [
        [
          'links.csv',
          'csv',
          { '/plain-one': ['https://example.com/plain-one', 'Plain one'], '/plain-two': ['https://example.com/plain-two', 'Quoted, with a comma'] },
        ],
        // Back-halves keep their path; bit.ly and go.acme.example are not the owner's domains here: the default domain.
        [
          'bitly.csv',
          'bitly',
          { '/3xYzAbc': ['https://shop.example/summer?utm_source=bitly', 'Summer sale'], '/start-here': ['https://docs.example/start', 'Docs'] },
        ],
        ['shlink.csv', 'shlink', { '/abc123': ['https://example.com/shlink-one', 'Shlink one'], '/promo': ['https://example.com/promo', null] }],
        ['kutt.json', 'kutt', { '/kutt1': ['https://example.com/kutt-one', 'Kutt one'], '/kutt-two': ['https://example.com/kutt-two', null] }],
        ['yourls.csv', 'yourls', { '/yl1': ['https://example.com/yourls-one', 'YOURLS one'], '/yl-2': ['https://example.com/yourls-two', null] }],
      ]
      for (const [name, format, expected] of cases) {
        const r = linkline('links', 'import', `${FIXTURES}${name}`, '--owner', 'alice', '--format', format)
        const count = Object.keys(expected).length + (name === 'links.csv' ? 1 : 0)
        assert.equal(r.status, 0, `${name}: ${r.stdout}${r.stderr}`)
        assert.equal(r.stdout, `created ${count}, skipped 0 (already present), failed 0\n`, name)
        for (const [path, [destination, title]] of Object.entries(expected)) {
          assert.deepEqual(await at(path).then((l) => l && [l.domain, l.destination, l.title]), [s.host, destination, title], `${name} ${path}`)
        }
      }
      // The CSV row without a path got a random one.
      assert.match((await links()).find((l) => l.destination === 'https://example.com/no-path')?.path ?? '', /^\/[A-Za-z0-9]{7}$/)
      const redirect = await s.request('GET', '/kutt1', { token: null })
      assert.equal(redirect.headers.location, 'https://example.com/kutt-one', 'imported links redirect')
    })

    test('a second run skips what is there; a conflicting link is reported, the rest imports', async () => {
      const again = linkline('links', 'import', `${FIXTURES}links.csv`, '--owner', 'alice')
      assert.equal(again.status, 0)
      assert.equal(again.stdout, 'created 0, skipped 3 (already present), failed 0\n', 'paths and the path-less row alike')
      const bob = await s.createToken('bob')
      assert.equal((await s.request('POST', '/v1/links', { token: bob, json: { destination: 'https://bob.example/', path: '/taken-by-bob' } })).status, 201)
      const conflicting = file('conflicts.csv', [
        'destination,path,domain,title,tags',
        'https://example.com/new,/taken-by-bob,,,',
        'https://example.com/changed,/plain-one,,Plain one,',
        'https://example.com/fresh,/fresh,,,',
      ])
      const r = linkline('links', 'import', conflicting, '--owner', 'alice')
      assert.equal(r.status, 1)
      assert.equal(
        r.stdout,
        [
          'created 1, skipped 0 (already present), failed 2',
          `  line 2: ${s.host}/taken-by-bob is already taken`,
          `  line 3: ${s.host}/plain-one is already taken`,
          '',
        ].join('\n'),
      )
      assert.equal((await at('/plain-one'))?.destination, 'https://example.com/plain-one', 'nothing overwritten')
      assert.equal((await at('/taken-by-bob', bob))?.destination, 'https://bob.example/')
      assert.ok(await at('/fresh'))
    })

    test('--dry-run checks every row and writes nothing', async () => {
      const rows = file('dry.csv', [
        'destination,path,domain,title,tags',
        'https://example.com/dry-1,/dry-1,,,',
        'https://example.com/dry-1,/dry-1,,,',
        'https://example.com/other,/dry-1,,,',
        'ftp://example.com/x,/dry-2,,,',
        'https://example.com/plain-one,/plain-one,,Plain one,',
      ])
      const r = linkline('links', 'import', rows, '--owner', 'alice', '--dry-run', '--json')
      assert.equal(r.status, 1, r.stderr)
      const summary = JSON.parse(r.stdout) as {
        created: number
        present: number
        failed: { where: string; param: string | null; reason: string }[]
        dryRun: boolean
      }
      assert.deepEqual([summary.created, summary.present, summary.dryRun], [1, 2, true])
      assert.deepEqual(
        summary.failed.map((f) => [f.where, f.param]),
        [
          ['line 4', 'path'],
          ['line 5', 'destination'],
        ],
      )
      assert.equal(await at('/dry-1'), undefined, 'nothing written')
    })

    test('broken rows: the good ones import, the bad ones are listed with their line and reason', async () => {
      const r = linkline('links', 'import', `${FIXTURES}broken.csv`, '--owner', 'carol')
      assert.equal(r.status, 1)
      const [head, ...reasons] = r.stdout.trimEnd().split('\n')
      assert.equal(head, 'created 2, skipped 0 (already present), failed 4')
      assert.deepEqual(
        reasons.map((l) => /^ {2}(line \d+): /.exec(l)?.[1]),
        ['line 3', 'line 4', 'line 5', 'line 6'],
      )
      assert.match(reasons[0] as string, /destination must be an absolute http or https URL/)
      assert.match(reasons[1] as string, /path must start with \//)
      assert.match(reasons[2] as string, /Quote/)
      assert.match(reasons[3] as string, /domain "nope.example"/)
      const carol = await s.createToken('carol')
      assert.deepEqual((await links(carol)).map((l) => l.path).sort(), ['/ok-1', '/ok-5'])
    })

    test('unknown format, unreadable file, a file of another format: a clear error and exit 2', () => {
      const cases: [string[], RegExp][] = [
        [['--format', 'xml'], /^linkline: unknown format "xml": use one of csv, bitly, shlink, kutt, yourls\n$/],
        [['--format', 'bitly'], /not a bitly file: no destinationurl or longurl column/],
        [['--format', 'kutt'], /not a kutt file/],
      ]
      for (const [options, message] of cases) {
        const r = linkline('links', 'import', `${FIXTURES}links.csv`, '--owner', 'alice', ...options)
        assert.equal(r.status, 2, options.join(' '))
        assert.match(r.stderr, message)
      }
      const missing = linkline('links', 'import', join(dir, 'nope.csv'), '--owner', 'alice')
      assert.equal(missing.status, 2)
      assert.match(missing.stderr, /cannot read .*nope\.csv: ENOENT/)
      assert.match(linkline('links', 'import', `${FIXTURES}links.csv`).stderr, /--owner/)
    })

    test('links export writes what the API exports, to stdout', async () => {
      for (const format of ['csv', 'ndjson']) {
        const r = linkline('links', 'export', '--owner', 'alice', '--format', format)
        assert.equal(r.status, 0, r.stderr)
        assert.equal(r.stdout, (await s.request('GET', `/v1/links/export?format=${format}`)).text, format)
      }
      // Linkline's own CSV export reads back as the plain CSV format: all present already.
      const exported = file('exported.csv', [linkline('links', 'export', '--owner', 'alice').stdout.trimEnd()])
      const back = linkline('links', 'import', exported, '--owner', 'alice')
      assert.equal(back.status, 0, back.stdout)
      assert.match(back.stdout, /^created 0, skipped \d+ \(already present\), failed 0\n$/)
    })
  })
